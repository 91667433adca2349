// Opening a vmcore with libkdumpfile: every format it reads (ELF, KDUMP/diskdump with zlib, lzo,
// snappy, zstd), plus makedumpfile's flattened stream, which libkdumpfile 0.5.1 does not read and which
// is rebuilt here into an anonymous file first. Also the per-CPU registers and kernel memory reads.
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#include "arch/arch.h"
#include "kernel/vmcore.h"
#include "unwind/step.h"
#include "util/bytes.h"
#include "util/cleanup.h"

// makedumpfile.h: the flattened header is padded to MAX_SIZE_MDF_HEADER.
#define FLAT_HEADER_SIZE 4096
// Records of a flattened stream are the writes makedumpfile did (a page or a buffer each); 64 Mi
// records is a 256 GiB dump of single pages.
#define MAX_FLAT_RECORDS (64u << 20)
// No rebuilt KDUMP file can be larger than 16 TiB of offsets; bounds a bogus record offset.
#define MAX_FLAT_OFFSET (1ull << 44)
// Far above the CPU count of any machine whose dump we could open; bounds the per-CPU loop.
#define MAX_CPUS 8192

/*
 * makedumpfile -F (and QEMU's kdump-* output) writes a stream of {offset, size, data} records, big
 * endian, that together form a KDUMP file. Replay them into a memfd, so libkdumpfile reads it as the
 * plain file. The cost is one copy of the compressed data, not of the memory it describes.
 */
static struct ct_error *rebuild_flattened(int in_fd, const char *path, const struct ct_sink *sink, bool *truncated,
					int *fd_ret)
{
	struct stat st;
	if (fstat(in_fd, &st) < 0)
		return ct_error_os(errno, "%s: fstat", path);
	if ((uint64_t)st.st_size < FLAT_HEADER_SIZE)
		return ct_error_create(CT_ERROR_CORRUPT, "%s: flattened dump shorter than its %d-byte header", path,
				       FLAT_HEADER_SIZE);
	void *map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, in_fd, 0);
	if (map == MAP_FAILED)
		return ct_error_os(errno, "%s: mmap", path);
	struct ct_bytes b = { .data = map, .size = st.st_size, .big_endian = true };
	_cleanup_close_ int out = memfd_create("coretriage-flattened", MFD_CLOEXEC);
	struct ct_error *err = NULL;
	if (out < 0) {
		err = ct_error_os(errno, "%s: memfd_create", path);
		goto out;
	}
	uint64_t off = FLAT_HEADER_SIZE;
	bool ended = false;
	for (uint32_t n = 0; n < MAX_FLAT_RECORDS; n++) {
		uint64_t rec_off, rec_size;
		if (!ct_bytes_uint(&b, off, 8, &rec_off) || !ct_bytes_uint(&b, off + 8, 8, &rec_size))
			break;
		// END_FLAG_FLAT_HEADER (-1) closes the stream.
		if ((int64_t)rec_off == -1) {
			ended = true;
			break;
		}
		off += 16;
		if (rec_off >= MAX_FLAT_OFFSET) {
			err = ct_error_create(CT_ERROR_CORRUPT, "%s: flattened record %u at file offset %" PRIu64
					      " is out of bounds", path, n, off - 16);
			goto out;
		}
		if (!ct_in_bounds(b.size, off, rec_size)) {
			// A cut stream: keep what there is, the header and notes come first.
			*truncated = true;
			ct_sink_diag(sink, CT_SEVERITY_WARNING, 0, CT_DIAG_TRUNCATED_DUMP,
				     "the flattened stream is cut in record %u (file offset %" PRIu64 ")", n, off - 16);
			rec_size = b.size - off;
			ended = true;
		}
		const uint8_t *p = b.data + off;
		uint64_t left = rec_size, dst = rec_off;
		while (left) {
			ssize_t w = pwrite(out, p, left, dst);
			if (w <= 0) {
				err = ct_error_os(w < 0 ? errno : EIO, "%s: writing the rebuilt dump", path);
				goto out;
			}
			p += w;
			dst += w;
			left -= w;
		}
		off += rec_size;
		if (ended)
			break;
	}
	// A stream cut before its end marker still holds a usable header and some pages: go on,
	// libkdumpfile reports what is missing page by page.
	if (!ended)
		ct_sink_diag(sink, CT_SEVERITY_WARNING, 0, CT_DIAG_TRUNCATED_DUMP, "the flattened stream has no end marker");
	// Ownership of the memfd passes to the caller.
	*fd_ret = out;
	out = -1;
out:
	munmap(map, st.st_size);
	return err;
}

static bool get_number(kdump_ctx_t *ctx, const char *key, kdump_num_t *ret)
{
	return kdump_get_number_attr(ctx, key, ret) == KDUMP_OK;
}

/*
 * QEMU's kdump header carries an empty utsname except for the machine, and libkdumpfile 0.5.1 then
 * does not set up the architecture: no registers, no address translation (docs/vmcore.md). The
 * fields follow the 8-byte signature and the 4-byte version (diskdump.h struct disk_dump_header:
 * sysname, nodename, release, version, machine, 65 bytes each). Returns the machine to set, or NULL
 * when the header is complete (or unreadable) and libkdumpfile can decide alone.
 */
static const char *kdump_header_arch(int fd, char machine[66])
{
	char uts[6 * 65];
	if (pread(fd, uts, sizeof(uts), 12) != (ssize_t)sizeof(uts) || uts[2 * 65] != '\0')
		return NULL;
	memcpy(machine, uts + 4 * 65, 65);
	machine[65] = '\0';
	// QEMU 7.2 writes "x86_64" here for x86 guests and "Unknown" for arm ones (no ELF_MACHINE_UNAME
	// there; ct_vmcore_open then asks VMCOREINFO); an empty one comes from older QEMUs (x86 too here).
	return machine[0] ? machine : "x86_64";
}

/*
 * Sanity of a KDUMP/DISKDUMP header before libkdumpfile sees it: 0.5.1 crashes in kdump_free()
 * after failing to open a header with a zero block size (found by the malformed-input suite).
 * struct disk_dump_header (makedumpfile diskdump_mod.h): signature[8], header_version, utsname
 * (6 x 65), timeval, status, block_size — at offset 428 with a 64-bit timeval, 416 with a 32-bit one.
 */
static struct ct_error *check_kdump_header(int fd, int32_t *block_size)
{
	unsigned char h[432];
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return ct_error_create(CT_ERROR_CORRUPT, "KDUMP header truncated (under %zu bytes)", sizeof(h));
	if (memcmp(h, "KDUMP   ", 8) != 0 && memcmp(h, "DISKDUMP", 8) != 0)
		return NULL;
	int32_t version, b64, b32;
	memcpy(&version, h + 8, 4);
	memcpy(&b64, h + 428, 4);
	memcpy(&b32, h + 416, 4);
	bool ok64 = b64 >= 512 && b64 <= (1 << 20) && !(b64 & (b64 - 1));
	bool ok32 = b32 >= 512 && b32 <= (1 << 20) && !(b32 & (b32 - 1));
	if (version < 0 || version > 64 || (!ok64 && !ok32))
		return ct_error_create(CT_ERROR_CORRUPT, "KDUMP header invalid (version %d, no valid block size)",
				       version);
	*block_size = ok64 ? b64 : b32;
	return NULL;
}

/* pr_reg of one CPU's NT_PRSTATUS (the raw note libkdumpfile keeps as cpu.N.PRSTATUS), read by the table. */
static bool read_prstatus(struct ct_vmcore *vm, size_t i, struct ct_core_thread *c)
{
	const struct ct_arch_info *arch = vm->arch;
	char key[64];
	snprintf(key, sizeof(key), "cpu.%zu.PRSTATUS", i);
	kdump_attr_t attr;
	if (kdump_get_attr(vm->ctx, key, &attr) != KDUMP_OK || attr.type != KDUMP_BLOB)
		return false;
	const uint8_t *raw = kdump_blob_pin(attr.val.blob);
	struct ct_bytes b = { .data = raw, .size = raw ? kdump_blob_size(attr.val.blob) : 0,
			      .big_endian = arch->big_endian };
	struct ct_bytes regs;
	bool ok = raw && ct_bytes_sub(&b, arch->prstatus_reg_offset, arch->prstatus_reg_size, &regs);
	if (ok)
		ct_thread_read_pr_reg(arch, &regs, c);
	kdump_blob_unpin(attr.val.blob);
	return ok;
}

static void load_cpus(struct ct_vmcore *vm, const struct ct_sink *out)
{
	kdump_num_t n;
	if (!get_number(vm->ctx, "cpu.number", &n) || n == 0) {
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_CPU_NOTES,
			     "the dump has no per-CPU register notes (NT_PRSTATUS)");
		return;
	}
	if (n > MAX_CPUS) {
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_CPU_CAP, "%" PRIu64 " CPUs in the dump; only %u read",
			     (uint64_t)n, MAX_CPUS);
		n = MAX_CPUS;
	}
	vm->cpus = calloc(n, sizeof(*vm->cpus));
	if (!vm->cpus)
		return;
	vm->num_cpus = n;
	for (size_t i = 0; i < n; i++) {
		struct ct_core_thread *c = &vm->cpus[i];
		char key[64];
		kdump_num_t v;
		c->tid = (int)i;
		snprintf(key, sizeof(key), "cpu.%zu.pid", i);
		if (get_number(vm->ctx, key, &v)) {
			c->has_pid = true;
			c->pid = (int)v;
		}
		c->has_regs = vm->arch && read_prstatus(vm, i, c);
	}
}

static bool vmcoreinfo_has(const char *key, void *arg)
{
	return ct_vmcoreinfo_get(arg, key) != NULL;
}

/* The blob attribute, not kdump_vmcoreinfo_raw(): 0.5.1's helper fails until the OS type is set. */
static struct ct_error *read_vmcoreinfo(struct ct_vmcore *vm)
{
	kdump_attr_t attr;
	struct ct_error *err = NULL;
	if (kdump_get_attr(vm->ctx, "linux.vmcoreinfo.raw", &attr) == KDUMP_OK && attr.type == KDUMP_BLOB) {
		const char *raw = kdump_blob_pin(attr.val.blob);
		size_t len = kdump_blob_size(attr.val.blob);
		err = raw ? ct_vmcoreinfo_parse(raw, strnlen(raw, len), &vm->vmcoreinfo) : NULL;
		kdump_blob_unpin(attr.val.blob);
	}
	return err;
}

static struct ct_error *open_ctx(struct ct_vmcore *vm, const char *path, const char *arch)
{
	vm->ctx = kdump_new();
	if (!vm->ctx)
		return &ct_enomem;
	// read(2), not mmap(2): libkdumpfile maps pages past the end of a truncated file, and touching
	// them is SIGBUS (seen with a 5000-byte head of a kdump-compressed file).
	kdump_set_number_attr(vm->ctx, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER);
	// The architecture must be set before the file is opened (the CPU notes are read at open).
	if (arch)
		kdump_set_string_attr(vm->ctx, KDUMP_ATTR_ARCH_NAME, arch);
	if (kdump_open_fd(vm->ctx, vm->fd) != KDUMP_OK)
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s: %s vmcore: libkdumpfile cannot read it: %s", path,
				       vm->kind, kdump_get_err(vm->ctx));
	return read_vmcoreinfo(vm);
}

struct ct_error *ct_vmcore_open(const char *path, const struct ct_dump_format *format, const struct ct_sink *out,
				bool *truncated, struct ct_vmcore *ret)
{
	struct ct_vmcore vm = { .fd = -1, .kind = format->name };
	struct ct_error *err = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ct_error_os(errno, "%s", path);
	if (format->container == CT_CONTAINER_FLATTENED) {
		int rebuilt = -1;
		err = rebuild_flattened(fd, path, out, truncated, &rebuilt);
		close(fd);
		if (err)
			return err;
		fd = rebuilt;
	}
	int32_t block_size = 0;
	err = check_kdump_header(fd, &block_size);
	if (err) {
		close(fd);
		return err;
	}
	vm.fd = fd;
	vm.qemu = format->qemu;
	char machine[66];
	const char *arch = format->container != CT_CONTAINER_ELF ? kdump_header_arch(fd, machine) : NULL;
	if (arch) {
		// Only QEMU writes a KDUMP header without a kernel release.
		vm.qemu = true;
		vm.arch = ct_arch_find_name(arch);
		ct_sink_diag(out, CT_SEVERITY_INFO, 0, CT_DIAG_KDUMP_NO_UTSNAME,
			     "the KDUMP header has no kernel release (written by QEMU); its machine field says %s", arch);
	}
	err = open_ctx(&vm, path, vm.arch ? vm.arch->name : arch);
	if (!err && arch && !vm.arch) {
		// The header does not name a known architecture: the kernel's own VMCOREINFO does, and the
		// dump is opened again with it (libkdumpfile reads the CPU notes only for a known one).
		vm.arch = ct_arch_find_vmcoreinfo(vmcoreinfo_has, &vm.vmcoreinfo);
		if (vm.arch) {
			ct_sink_diag(out, CT_SEVERITY_INFO, 0, CT_DIAG_ARCH_FROM_VMCOREINFO,
				     "architecture %s, from VMCOREINFO %s", vm.arch->name, vm.arch->vmcoreinfo_key);
			kdump_free(vm.ctx);
			ct_vmcoreinfo_deinit(&vm.vmcoreinfo);
			err = open_ctx(&vm, path, vm.arch->name);
		}
	}
	if (err) {
		ct_vmcore_close(&vm);
		return err;
	}
	const char *name = NULL;
	if (!vm.arch && kdump_get_string_attr(vm.ctx, KDUMP_ATTR_ARCH_NAME, &name) == KDUMP_OK)
		vm.arch = ct_arch_find_name(name);
	if (!vm.vmcoreinfo.num_entries)
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_VMCOREINFO,
			     "the dump has no VMCOREINFO: no kernel log, symbols or stacks can be found");
	else if (kdump_set_string_attr(vm.ctx, KDUMP_ATTR_OSTYPE, "linux") != KDUMP_OK)
		// Virtual addresses are translated only once libkdumpfile knows the OS.
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_NO_ADDRESS_TRANSLATION,
			     "libkdumpfile cannot set up Linux address translation: %s", kdump_get_err(vm.ctx));
	const char *off = ct_vmcoreinfo_get(&vm.vmcoreinfo, "KERNELOFFSET");
	if (off) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(off, &end, 16); // "%lx", no 0x
		if (!errno && !*end) {
			vm.has_kaslr_offset = true;
			vm.kaslr_offset = v;
		}
	}
	// The KDUMP format numbers pages in blocks; libkdumpfile 0.5.1 numbers them by the kernel's page
	// size, so a dump whose blocks are bigger (QEMU 7.2 writes arm64 ones with 64 KiB blocks for a 4 KiB
	// kernel) has every page out of bounds: say so once instead of a failed read per structure.
	const char *ps = ct_vmcoreinfo_get(&vm.vmcoreinfo, "PAGESIZE");
	if (block_size && ps && strtoll(ps, NULL, 10) != block_size)
		ct_sink_diag(out, CT_SEVERITY_WARNING, 0, CT_DIAG_KDUMP_BLOCK_SIZE,
			     "the KDUMP header's block size is %d bytes but the kernel's pages are %s: libkdumpfile "
			     "cannot read this dump's memory (QEMU writes arm64 kdump files so; its ELF format works)",
			     (int)block_size, ps);
	load_cpus(&vm, out);
	*ret = vm;
	return NULL;
}

void ct_vmcore_close(struct ct_vmcore *vm)
{
	// kdump_free before close: the context still maps the file.
	if (vm->ctx)
		kdump_free(vm->ctx);
	if (vm->fd >= 0)
		close(vm->fd);
	ct_vmcoreinfo_deinit(&vm->vmcoreinfo);
	free(vm->cpus);
	memset(vm, 0, sizeof(*vm));
	vm->fd = -1;
}

struct ct_error *ct_vmcore_read(struct ct_vmcore *vm, uint64_t addr, void *buf, size_t len)
{
	size_t got = len;
	kdump_status st = kdump_read(vm->ctx, KDUMP_KVADDR, addr, buf, &got);
	if (st == KDUMP_OK && got == len)
		return NULL;
	if (st == KDUMP_ERR_NODATA)
		return ct_error_create(CT_ERROR_NODATA, "0x%016" PRIx64 ": %s", addr + got, kdump_get_err(vm->ctx));
	struct ct_error *err = ct_error_fault(addr + got, "cannot read %zu bytes at 0x%016" PRIx64 "%s%s", len, addr,
					      st == KDUMP_OK ? "" : ": ", st == KDUMP_OK ? "" : kdump_get_err(vm->ctx));
	return err;
}

struct ct_error *ct_vmcore_read_u64(struct ct_vmcore *vm, uint64_t addr, uint64_t *ret)
{
	uint8_t b[8];
	struct ct_error *err = ct_vmcore_read(vm, addr, b, sizeof(b));
	if (!err)
		*ret = ct_load64(b, vm->arch && vm->arch->big_endian);
	return err;
}

struct ct_error *ct_vmcore_read_u32(struct ct_vmcore *vm, uint64_t addr, uint32_t *ret)
{
	uint8_t b[4];
	struct ct_error *err = ct_vmcore_read(vm, addr, b, sizeof(b));
	if (!err)
		*ret = ct_load32(b, vm->arch && vm->arch->big_endian);
	return err;
}

bool ct_vmcore_try_read(struct ct_vmcore *vm, uint64_t addr, void *buf, size_t len)
{
	struct ct_error *err = ct_vmcore_read(vm, addr, buf, len);
	ct_error_destroy(err);
	return err == NULL;
}

static bool mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return ct_vmcore_try_read(arg, addr, buf, len);
}

struct ct_unwind_mem ct_vmcore_mem(struct ct_vmcore *vm)
{
	return (struct ct_unwind_mem){ .arch = vm->arch, .read = mem_read, .arg = vm };
}
