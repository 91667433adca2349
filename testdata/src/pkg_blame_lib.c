// The program's own library (pkg_blame.c): packs records with zlib's compress().
#include <zlib.h>

unsigned long pack_records(const unsigned char *records, unsigned long n, uLongf *len)
{
	unsigned char out[256];
	int rc = compress(out, len, records, n);
	return rc == Z_OK ? *len : 0;
}
