// systemd-coredump file names: core.COMM.UID.BOOTID.PID.TIMESTAMP[.zst|.xz|.lz4].
// systemd src/coredump/coredump.c make_filename() (v252): COMM is escaped with xescape(comm, "./ "),
// BOOTID is 32 hex digits, TIMESTAMP is microseconds since the epoch.
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input/input.h"

static bool parse_ulong(const char *s, size_t n, unsigned long long *ret)
{
	if (n == 0 || n > 20)
		return false;
	unsigned long long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		unsigned long long d = (unsigned long long)(s[i] - '0');
		if (v > (~0ULL - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

// Decodes systemd's xescape() (\xNN) of COMM.
static char *unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *p = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0) {
			*p++ = (char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3]));
			i += 3;
		} else {
			*p++ = s[i];
		}
	}
	*p = '\0';
	return out;
}

bool ct_coredump_name_parse(const char *path, struct ct_coredump_name *ret)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "core.", 5) != 0)
		return false;
	const char *s = base + 5;
	size_t len = strlen(s);
	const char *compression = NULL;
	static const char *const exts[] = { "zst", "xz", "lz4" };
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);
		if (len > el + 1 && s[len - el - 1] == '.' && !strcmp(s + len - el, exts[i])) {
			compression = exts[i];
			len -= el + 1;
			break;
		}
	}
	// Fields from the right: COMM may contain escaped dots only, but parse from the end anyway so
	// an unescaped name still works.
	const char *fields[4];
	size_t flen[4];
	size_t end = len;
	for (int k = 3; k >= 0; k--) {
		size_t dot = end;
		while (dot > 0 && s[dot - 1] != '.')
			dot--;
		if (dot == 0)
			return false;
		fields[k] = s + dot;
		flen[k] = end - dot;
		end = dot - 1;
	}
	// fields: UID BOOTID PID TIMESTAMP; COMM is s[0, end).
	if (end == 0)
		return false;
	unsigned long long uid, pid, ts;
	if (!parse_ulong(fields[0], flen[0], &uid) || !parse_ulong(fields[2], flen[2], &pid) ||
	    !parse_ulong(fields[3], flen[3], &ts))
		return false;
	if (flen[1] != 32)
		return false;
	for (size_t i = 0; i < 32; i++) {
		if (hexval(fields[1][i]) < 0)
			return false;
	}
	char *comm = unescape(s, end);
	if (!comm)
		return false;
	ret->comm = comm;
	ret->uid = (unsigned long)uid;
	memcpy(ret->boot_id, fields[1], 32);
	ret->boot_id[32] = '\0';
	ret->pid = (unsigned long)pid;
	ret->timestamp_usec = ts;
	ret->compression = compression;
	return true;
}

void ct_coredump_name_deinit(struct ct_coredump_name *name)
{
	free(name->comm);
	name->comm = NULL;
}

void ct_input_add_name_metadata(const char *path, struct ct_report *report)
{
	struct ct_coredump_name n;
	if (!ct_coredump_name_parse(path, &n))
		return;
	char buf[64];
	ct_report_add_environment(report, "coredump.comm", n.comm);
	snprintf(buf, sizeof(buf), "%lu", n.uid);
	ct_report_add_environment(report, "coredump.uid", buf);
	ct_report_add_environment(report, "coredump.boot_id", n.boot_id);
	snprintf(buf, sizeof(buf), "%lu", n.pid);
	ct_report_add_environment(report, "coredump.pid", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, n.timestamp_usec);
	ct_report_add_environment(report, "coredump.timestamp", buf);
	time_t t = (time_t)(n.timestamp_usec / 1000000);
	struct tm tm;
	if (gmtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		ct_report_add_environment(report, "coredump.time", buf);
	if (n.compression)
		ct_report_add_environment(report, "coredump.compression", n.compression);
	ct_coredump_name_deinit(&n);
}
