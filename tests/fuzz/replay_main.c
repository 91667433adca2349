// Standalone driver for the fuzz targets when libFuzzer is not linked (gcc builds, CI without
// CT_FUZZ): runs LLVMFuzzerTestOneInput once over each file given, or each file in a directory
// given. Regression inputs and seeds are replayed this way under ASan/UBSan.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0;
	for (;;) {
		if (size == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = n;
		}
		size_t r = fread(buf + size, 1, cap - size, f);
		if (r == 0)
			break;
		size += r;
	}
	fclose(f);
	// An exact-size copy, so ASan sees reads one byte past the input.
	uint8_t *exact = malloc(size ? size : 1);
	if (!exact) {
		free(buf);
		return 1;
	}
	memcpy(exact, buf, size);
	free(buf);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	printf("ran %s (%zu bytes)\n", path, size);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0, n = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct dirent **list;
			int k = scandir(argv[i], &list, NULL, alphasort);
			for (int j = 0; j < k; j++) {
				char path[4096];
				if (list[j]->d_name[0] != '.' &&
				    snprintf(path, sizeof(path), "%s/%s", argv[i], list[j]->d_name) < (int)sizeof(path) &&
				    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
					rc |= run_file(path);
					n++;
				}
				free(list[j]);
			}
			free(list);
		} else {
			rc |= run_file(argv[i]);
			n++;
		}
	}
	printf("%d inputs\n", n);
	return rc;
}
