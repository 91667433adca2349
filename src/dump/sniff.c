// Input format detection by signature.
#include <elf.h>
#include <string.h>

#include "dump/sniff.h"
#include "util/bytes.h"

static const char *const format_names[CT_FORMAT_NUM_] = {
	[CT_FORMAT_UNKNOWN] = "unknown",
	[CT_FORMAT_ELF_CORE] = "ELF core",
	[CT_FORMAT_ELF_EXECUTABLE] = "ELF executable",
	[CT_FORMAT_ELF_OTHER] = "ELF object",
	[CT_FORMAT_ELF_BROKEN] = "broken ELF",
	[CT_FORMAT_ZSTD] = "zstd-compressed",
	[CT_FORMAT_XZ] = "xz-compressed",
	[CT_FORMAT_LZ4] = "lz4-compressed",
	[CT_FORMAT_GZIP] = "gzip-compressed",
	[CT_FORMAT_BZIP2] = "bzip2-compressed",
	[CT_FORMAT_KDUMP] = "kdump-compressed (diskdump)",
	[CT_FORMAT_FLATTENED] = "makedumpfile flattened",
};

const char *ct_format_to_string(enum ct_format format)
{
	return (unsigned)format < CT_FORMAT_NUM_ ? format_names[format] : "?";
}

static bool starts_with(const uint8_t *data, size_t size, const void *magic, size_t n)
{
	return size >= n && memcmp(data, magic, n) == 0;
}

enum ct_format ct_sniff(const uint8_t *data, size_t size)
{
	if (starts_with(data, size, ELFMAG, SELFMAG)) {
		if (size < 20 || (data[EI_DATA] != ELFDATA2LSB && data[EI_DATA] != ELFDATA2MSB))
			return CT_FORMAT_ELF_BROKEN;
		bool be = data[EI_DATA] == ELFDATA2MSB;
		uint16_t type = ct_load16(data + 16, be), swapped = ct_load16(data + 16, !be);
		if (type == ET_CORE)
			return CT_FORMAT_ELF_CORE;
		if (type == ET_EXEC || type == ET_DYN)
			return CT_FORMAT_ELF_EXECUTABLE;
		// e_type only makes sense in the other byte order: EI_DATA lies (a damaged header), and
		// "not a core file" would send the user the wrong way.
		if (type > ET_CORE && type < ET_LOOS && swapped >= ET_REL && swapped <= ET_CORE)
			return CT_FORMAT_ELF_BROKEN;
		return CT_FORMAT_ELF_OTHER;
	}
	if (starts_with(data, size, "\x28\xb5\x2f\xfd", 4))
		return CT_FORMAT_ZSTD;
	if (starts_with(data, size, "\xfd" "7zXZ\0", 6))
		return CT_FORMAT_XZ;
	if (starts_with(data, size, "\x04\x22\x4d\x18", 4))
		return CT_FORMAT_LZ4;
	if (starts_with(data, size, "\x1f\x8b", 2))
		return CT_FORMAT_GZIP;
	if (starts_with(data, size, "BZh", 3))
		return CT_FORMAT_BZIP2;
	if (starts_with(data, size, "KDUMP   ", 8) || starts_with(data, size, "DISKDUMP", 8))
		return CT_FORMAT_KDUMP;
	if (starts_with(data, size, "makedumpfile", 12))
		return CT_FORMAT_FLATTENED;
	return CT_FORMAT_UNKNOWN;
}

struct ct_error *ct_sniff_error(enum ct_format format, const char *path, const uint8_t *data, size_t size)
{
	switch (format) {
	case CT_FORMAT_ELF_EXECUTABLE:
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%s: is an executable or shared library, not a core file",
				       path);
	case CT_FORMAT_ELF_OTHER:
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%s: is an ELF object, not a core file", path);
	case CT_FORMAT_ELF_BROKEN:
		if (size < 20)
			return ct_error_create(CT_ERROR_CORRUPT, "%s: ELF header is truncated (%zu bytes)", path, size);
		if (data[EI_DATA] != ELFDATA2LSB && data[EI_DATA] != ELFDATA2MSB)
			return ct_error_create(CT_ERROR_CORRUPT, "%s: ELF header is invalid (byte order EI_DATA=%u)", path,
					       data[EI_DATA]);
		return ct_error_create(CT_ERROR_CORRUPT,
				       "%s: ELF header is invalid: e_type 0x%04x makes sense only in the other byte order "
				       "(EI_DATA is wrong; a damaged core?)",
				       path, ct_load16(data + 16, data[EI_DATA] == ELFDATA2MSB));
	case CT_FORMAT_ZSTD:
	case CT_FORMAT_XZ:
	case CT_FORMAT_LZ4:
	case CT_FORMAT_GZIP:
	case CT_FORMAT_BZIP2:
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s: %s file; decompress it first (e.g. with %s -d)", path,
				       ct_format_to_string(format),
				       format == CT_FORMAT_ZSTD ? "zstd" : format == CT_FORMAT_XZ ? "xz" :
				       format == CT_FORMAT_LZ4	? "lz4" : format == CT_FORMAT_GZIP ? "gzip" : "bzip2");
	case CT_FORMAT_KDUMP:
	case CT_FORMAT_FLATTENED:
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s: %s kernel dump, but this build has no kernel dump support",
				       path, ct_format_to_string(format));
	default:
		return ct_error_create(CT_ERROR_CORRUPT, "%s: not a core dump (unrecognized format, %zu bytes)", path, size);
	}
}
