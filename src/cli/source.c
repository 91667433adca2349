// Source lines for --source: the files a report's frames name, found as recorded or under
// --source-dir, read once each (a few kept), tabs expanded for the terminal.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/source.h"

/** A source file larger than this is not shown: no program's source line needs more. */
#define SOURCE_MAX_BYTES (16u << 20)
/** Directory levels of a recorded path tried under a --source-dir (gdb's substitution by suffix). */
#define SOURCE_MAX_SUFFIXES 16
/** Columns of one shown line at most, after tab expansion. */
#define SOURCE_LINE_MAX 512

static void file_clear(struct ct_cli_source_file *f)
{
	free(f->path);
	free(f->data);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

static bool read_file(const char *path, char **data_ret, size_t *size_ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	// Regular files only: a FIFO or a device named by a dump's DWARF must not block or be read.
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SOURCE_MAX_BYTES) {
		close(fd);
		return false;
	}
	size_t size = (size_t)st.st_size;
	char *data = malloc(size + 1);
	size_t got = 0;
	while (data && got < size) {
		ssize_t n = read(fd, data + got, size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!data)
		return false;
	data[got] = '\0';
	*data_ret = data;
	*size_ret = got;
	return true;
}

// The file as recorded, else under each --source-dir by ever shorter suffixes of its path.
static bool find_file(const struct ct_cli_source *s, const char *file, char **data, size_t *size)
{
	if (read_file(file, data, size))
		return true;
	for (size_t d = 0; d < s->num_dirs; d++) {
		const char *suffix = file;
		for (int level = 0; level < SOURCE_MAX_SUFFIXES && suffix && *suffix; level++) {
			while (*suffix == '/')
				suffix++;
			char *p = NULL;
			if (asprintf(&p, "%s/%s", s->dirs[d], suffix) < 0)
				return false;
			bool ok = read_file(p, data, size);
			free(p);
			if (ok)
				return true;
			suffix = strchr(suffix, '/');
		}
	}
	return false;
}

static struct ct_cli_source_file *load(struct ct_cli_source *s, const char *file)
{
	for (size_t i = 0; i < CT_CLI_SOURCE_FILES; i++)
		if (s->files[i].path && !strcmp(s->files[i].path, file))
			return s->files[i].data ? &s->files[i] : NULL;
	struct ct_cli_source_file *f = &s->files[s->next];
	s->next = (s->next + 1) % CT_CLI_SOURCE_FILES;
	file_clear(f);
	f->path = strdup(file);
	if (!f->path || !find_file(s, file, &f->data, &f->size))
		return NULL; // remembered as missing: not looked for again
	size_t n = 1;
	for (size_t i = 0; i < f->size; i++)
		n += f->data[i] == '\n';
	f->lines = malloc(n * sizeof(*f->lines));
	if (!f->lines) {
		file_clear(f);
		return NULL;
	}
	f->lines[0] = 0;
	f->num_lines = 1;
	for (size_t i = 0; i < f->size; i++)
		if (f->data[i] == '\n')
			f->lines[f->num_lines++] = i + 1;
	if (f->num_lines > 1 && f->lines[f->num_lines - 1] == f->size)
		f->num_lines--; // the newline ending the last line starts no line
	return f;
}

static const char *source_line(void *ctx, const char *file, int line)
{
	struct ct_cli_source *s = ctx;
	struct ct_cli_source_file *f = load(s, file);
	if (!f || line < 1 || (size_t)line > f->num_lines)
		return NULL;
	const char *p = f->data + f->lines[line - 1];
	size_t col = 0;
	for (; *p && *p != '\n' && col < SOURCE_LINE_MAX; p++) {
		if (*p == '\t') {
			do
				s->buf[col++] = ' ';
			while (col % 8 && col < SOURCE_LINE_MAX);
		} else if (*p != '\r') {
			s->buf[col++] = *p;
		}
	}
	s->buf[col] = '\0';
	return s->buf;
}

bool ct_cli_source_init(struct ct_cli_source *s, const char *const *dirs, size_t num_dirs)
{
	memset(s, 0, sizeof(*s));
	s->dirs = dirs;
	s->num_dirs = num_dirs;
	s->buf = malloc(SOURCE_LINE_MAX + 1);
	s->ops.line = source_line;
	s->ops.ctx = s;
	return s->buf != NULL;
}

void ct_cli_source_deinit(struct ct_cli_source *s)
{
	for (size_t i = 0; i < CT_CLI_SOURCE_FILES; i++)
		file_clear(&s->files[i]);
	free(s->buf);
}
