/**
 * @file sniff.h
 * What an input file is, from its first bytes: an ELF core, another kind of ELF, a compressed
 * file, a kernel dump container, or something else. Cheap and bounds-checked.
 */
#ifndef CT_SNIFF_H
#define CT_SNIFF_H

#include <stddef.h>
#include <stdint.h>

#include "coretriage/error.h"

enum ct_format {
	CT_FORMAT_UNKNOWN,
	CT_FORMAT_ELF_CORE,
	CT_FORMAT_ELF_EXECUTABLE, /**< ET_EXEC, or ET_DYN */
	CT_FORMAT_ELF_OTHER, /**< ET_REL and unknown ELF types */
	CT_FORMAT_ELF_BROKEN, /**< ELF magic, but the header is cut or invalid */
	CT_FORMAT_ZSTD,
	CT_FORMAT_XZ,
	CT_FORMAT_LZ4,
	CT_FORMAT_GZIP,
	CT_FORMAT_BZIP2,
	CT_FORMAT_KDUMP, /**< "KDUMP   " / "DISKDUMP" */
	CT_FORMAT_FLATTENED, /**< makedumpfile flattened stream */
	CT_FORMAT_NUM_
};

const char *ct_format_to_string(enum ct_format format);
enum ct_format ct_sniff(const uint8_t *data, size_t size);
/** The error to report for an input of @p format that no pipeline took. */
struct ct_error *ct_sniff_error(enum ct_format format, const char *path, const uint8_t *data, size_t size);

#endif
