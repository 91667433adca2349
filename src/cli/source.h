/**
 * @file source.h
 * The source lines --source shows (writers/writers.h's struct ct_source_lines), read by the CLI:
 * each file as its frame records it, else under the --source-dir directories (the recorded path,
 * then ever shorter suffixes of it, as gdb's directory search does). Regular files of at most
 * 16 MiB; the text goes through the writer's sanitizer like everything else from outside.
 */
#ifndef CT_CLI_SOURCE_H
#define CT_CLI_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "writers/writers.h"

/** Files kept in memory at once: the crashing thread's frames rarely span more. */
#define CT_CLI_SOURCE_FILES 8

struct ct_cli_source_file {
	char *path; /**< as the frame names it; data NULL: not found */
	char *data;
	size_t size;
	size_t *lines; /**< offset of each line's start */
	size_t num_lines;
};

struct ct_cli_source {
	struct ct_source_lines ops; /**< handed to the writer */
	const char *const *dirs; /**< --source-dir, borrowed from argv */
	size_t num_dirs;
	struct ct_cli_source_file files[CT_CLI_SOURCE_FILES];
	size_t next;
	char *buf; /**< the line returned last */
};

/** Returns false when out of memory. */
bool ct_cli_source_init(struct ct_cli_source *s, const char *const *dirs, size_t num_dirs);
void ct_cli_source_deinit(struct ct_cli_source *s);

#endif
