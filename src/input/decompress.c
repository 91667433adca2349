// Streaming decompression of compressed cores into an anonymous temporary file.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/input.h"
#include "util/cleanup.h"

#if CT_HAVE_ZSTD
#include <zstd.h>
#endif
#if CT_HAVE_LZMA
#include <lzma.h>
#endif
#if CT_HAVE_LZ4
#include <lz4frame.h>
#endif
#if CT_HAVE_ZLIB
#include <zlib.h>
#endif
#if CT_HAVE_BZIP2
#include <bzlib.h>
#endif

/** Read size from the compressed file: large enough for few syscalls, small enough for cache. */
#define IN_CHUNK (256u << 10)
/** Decompressed output buffer; a multiple of HOLE_BLOCK. */
#define OUT_CHUNK (1u << 20)
/** Output blocks of all zeros this large are skipped with lseek, leaving holes (core pages are
 * often zero). */
#define HOLE_BLOCK 4096u

bool ct_input_is_compressed(enum ct_format format)
{
	return format == CT_FORMAT_ZSTD || format == CT_FORMAT_XZ || format == CT_FORMAT_LZ4 ||
	       format == CT_FORMAT_GZIP || format == CT_FORMAT_BZIP2;
}

// The sink: a temporary file written sequentially, zero blocks as holes, with a size cap.
struct sink {
	int fd;
	uint64_t size;
	uint64_t max;
	/** Bytes really written (holes cost nothing): the temporary space the core takes. */
	uint64_t written, max_written;
	bool space_reached, size_reached;
	/** Compressed bytes read so far, to say where a stream broke. */
	uint64_t in_read;
	const char *path; /* borrowed, for messages */
};

int ct_input_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC | O_EXCL, 0600);
	if (fd >= 0)
		return fd;
	// No O_TMPFILE (old kernel, some filesystems): an unlinked mkstemp file is as anonymous.
	size_t n = strlen(dir) + sizeof("/coretriage-XXXXXX");
	_cleanup_free_ char *tmpl = malloc(n);
	if (!tmpl)
		return -1;
	snprintf(tmpl, n, "%s/coretriage-XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return -1;
	unlink(tmpl);
	return fd;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	// p[0] == 0 and p[i] == p[i+1] for all i: every byte is zero.
	if (n == 0 || p[0] != 0)
		return n == 0;
	return memcmp(p, p + 1, n - 1) == 0;
}

static struct ct_error *sink_write(struct sink *s, const uint8_t *buf, size_t n)
{
	if (n > s->max - s->size || s->size + n > s->max) {
		s->size_reached = true;
		return ct_error_create(CT_ERROR_LIMIT,
				       "decompressed core is larger than the limit of %llu bytes (%llu MiB); raise --max-core-size",
				       (unsigned long long)s->max, (unsigned long long)(s->max >> 20));
	}
	size_t off = 0;
	while (off < n) {
		size_t len = n - off < HOLE_BLOCK ? n - off : HOLE_BLOCK;
		// Hole for a whole zero block that starts block-aligned; the file size is fixed at the end.
		if (len == HOLE_BLOCK && (s->size % HOLE_BLOCK) == 0 && all_zero(buf + off, len)) {
			if (lseek(s->fd, (off_t)len, SEEK_CUR) < 0)
				return ct_error_os(errno, "temporary file for %s", s->path);
		} else {
			if (len > s->max_written - s->written) {
				s->space_reached = true;
				return ct_error_create(CT_ERROR_LIMIT,
						       "the decompressed core needs more than the %llu MiB of temporary space of the work budget",
						       (unsigned long long)(s->max_written >> 20));
			}
			s->written += len;
			const uint8_t *p = buf + off;
			size_t left = len;
			while (left) {
				ssize_t w = write(s->fd, p, left);
				if (w < 0) {
					if (errno == EINTR)
						continue;
					return ct_error_os(errno, "writing the decompressed core of %s to $TMPDIR", s->path);
				}
				p += w;
				left -= (size_t)w;
			}
		}
		off += len;
		s->size += len;
	}
	return NULL;
}

static struct ct_error *sink_finish(struct sink *s)
{
	if (ftruncate(s->fd, (off_t)s->size) < 0)
		return ct_error_os(errno, "temporary file for %s", s->path);
	return NULL;
}

static ssize_t read_some(struct sink *s, int fd, uint8_t *buf, size_t n)
{
	for (;;) {
		ssize_t r = read(fd, buf, n);
		if (r > 0)
			s->in_read += (uint64_t)r;
		if (r >= 0 || errno != EINTR)
			return r;
	}
}

#if CT_HAVE_ZSTD
static struct ct_error *decompress_zstd(int in, struct sink *s, uint8_t *ibuf, uint8_t *obuf)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	if (!ds)
		return &ct_enomem;
	struct ct_error *err = NULL;
	size_t last = 1; // 0 once a frame is complete
	bool any = false;
	for (;;) {
		ssize_t r = read_some(s, in, ibuf, IN_CHUNK);
		if (r < 0) {
			err = ct_error_os(errno, "%s", s->path);
			break;
		}
		if (r == 0)
			break;
		any = true;
		ZSTD_inBuffer zin = { ibuf, (size_t)r, 0 };
		while (zin.pos < zin.size) {
			ZSTD_outBuffer zout = { obuf, OUT_CHUNK, 0 };
			last = ZSTD_decompressStream(ds, &zout, &zin);
			if (ZSTD_isError(last)) {
				err = ct_error_create(CT_ERROR_CORRUPT, "%s: zstd: %s", s->path, ZSTD_getErrorName(last));
				goto out;
			}
			if ((err = sink_write(s, obuf, zout.pos)))
				goto out;
		}
	}
	if (!err) {
		// Flush what the decoder still holds.
		for (;;) {
			ZSTD_inBuffer zin = { ibuf, 0, 0 };
			ZSTD_outBuffer zout = { obuf, OUT_CHUNK, 0 };
			size_t ret = ZSTD_decompressStream(ds, &zout, &zin);
			if (ZSTD_isError(ret))
				break;
			if ((err = sink_write(s, obuf, zout.pos)))
				break;
			if (zout.pos < OUT_CHUNK)
				break;
		}
	}
	if (!err && (!any || last != 0))
		err = ct_error_create(CT_ERROR_CORRUPT, "%s: zstd stream is truncated", s->path);
out:
	ZSTD_freeDStream(ds);
	return err;
}
#endif

#if CT_HAVE_LZMA
static struct ct_error *decompress_xz(int in, struct sink *s, uint8_t *ibuf, uint8_t *obuf)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	// No decoder memory limit beyond the worker's own: xz -9 needs 65 MiB, which is fine.
	if (lzma_stream_decoder(&strm, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return ct_error_create(CT_ERROR_LIBRARY, "lzma_stream_decoder failed");
	struct ct_error *err = NULL;
	lzma_action action = LZMA_RUN;
	strm.next_out = obuf;
	strm.avail_out = OUT_CHUNK;
	for (;;) {
		if (strm.avail_in == 0 && action == LZMA_RUN) {
			ssize_t r = read_some(s, in, ibuf, IN_CHUNK);
			if (r < 0) {
				err = ct_error_os(errno, "%s", s->path);
				break;
			}
			strm.next_in = ibuf;
			strm.avail_in = (size_t)r;
			if (r == 0)
				action = LZMA_FINISH;
		}
		lzma_ret ret = lzma_code(&strm, action);
		if (strm.avail_out == 0 || ret == LZMA_STREAM_END) {
			if ((err = sink_write(s, obuf, OUT_CHUNK - strm.avail_out)))
				break;
			strm.next_out = obuf;
			strm.avail_out = OUT_CHUNK;
		}
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK) {
			err = ct_error_create(CT_ERROR_CORRUPT, "%s: xz: %s", s->path,
					      ret == LZMA_BUF_ERROR ? "stream is truncated" :
					      ret == LZMA_MEM_ERROR ? "out of memory" :
					      ret == LZMA_FORMAT_ERROR ? "not an xz stream" : "corrupt data");
			break;
		}
	}
	lzma_end(&strm);
	return err;
}
#endif

#if CT_HAVE_LZ4
static struct ct_error *decompress_lz4(int in, struct sink *s, uint8_t *ibuf, uint8_t *obuf)
{
	LZ4F_dctx *dctx;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return &ct_enomem;
	struct ct_error *err = NULL;
	size_t hint = 1;
	bool any = false;
	for (;;) {
		ssize_t r = read_some(s, in, ibuf, IN_CHUNK);
		if (r < 0) {
			err = ct_error_os(errno, "%s", s->path);
			break;
		}
		if (r == 0)
			break;
		any = true;
		size_t pos = 0;
		while (pos < (size_t)r) {
			size_t src_size = (size_t)r - pos, dst_size = OUT_CHUNK;
			hint = LZ4F_decompress(dctx, obuf, &dst_size, ibuf + pos, &src_size, NULL);
			if (LZ4F_isError(hint)) {
				err = ct_error_create(CT_ERROR_CORRUPT, "%s: lz4: %s", s->path, LZ4F_getErrorName(hint));
				goto out;
			}
			pos += src_size;
			if ((err = sink_write(s, obuf, dst_size)))
				goto out;
		}
	}
	// Drain output still buffered in the context.
	for (int i = 0; !err && i < 1024; i++) {
		size_t src_size = 0, dst_size = OUT_CHUNK;
		size_t ret = LZ4F_decompress(dctx, obuf, &dst_size, ibuf, &src_size, NULL);
		if (LZ4F_isError(ret) || dst_size == 0)
			break;
		err = sink_write(s, obuf, dst_size);
	}
	if (!err && (!any || hint != 0))
		err = ct_error_create(CT_ERROR_CORRUPT, "%s: lz4 stream is truncated", s->path);
out:
	LZ4F_freeDecompressionContext(dctx);
	return err;
}
#endif

#if CT_HAVE_ZLIB
// gzip, as `gzip core` and logrotate leave files; several members one after another are one file
// (RFC 1952 2.2).
static struct ct_error *decompress_gzip(int in, struct sink *s, uint8_t *ibuf, uint8_t *obuf)
{
	z_stream z = { 0 };
	// 15 + 16: a gzip header and trailer around deflate data, with the largest window.
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return &ct_enomem;
	struct ct_error *err = NULL;
	int ret = Z_OK;
	bool eof = false;
	for (;;) {
		if (z.avail_in == 0 && !eof) {
			ssize_t r = read_some(s, in, ibuf, IN_CHUNK);
			if (r < 0) {
				err = ct_error_os(errno, "%s", s->path);
				break;
			}
			eof = r == 0;
			z.next_in = ibuf;
			z.avail_in = (uInt)r;
		}
		if (ret == Z_STREAM_END) {
			if (z.avail_in == 0 && eof)
				break;
			inflateReset(&z); // the next member
		}
		z.next_out = obuf;
		z.avail_out = OUT_CHUNK;
		ret = inflate(&z, Z_NO_FLUSH);
		if ((err = sink_write(s, obuf, OUT_CHUNK - z.avail_out)))
			break;
		if (ret == Z_BUF_ERROR && eof && z.avail_in == 0) {
			err = ct_error_create(CT_ERROR_CORRUPT, "%s: gzip stream is truncated", s->path);
			break;
		}
		if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
			err = ct_error_create(CT_ERROR_CORRUPT, "%s: gzip: %s", s->path, z.msg ? z.msg : "corrupt data");
			break;
		}
	}
	inflateEnd(&z);
	return err;
}
#endif

#if CT_HAVE_BZIP2
// bzip2 (`bzip2 core`, elfutils' test cores); concatenated streams are one file, as bunzip2 reads them.
static struct ct_error *decompress_bzip2(int in, struct sink *s, uint8_t *ibuf, uint8_t *obuf)
{
	bz_stream z = { 0 };
	if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
		return &ct_enomem;
	struct ct_error *err = NULL;
	int ret = BZ_OK;
	bool eof = false, any = false;
	for (;;) {
		if (z.avail_in == 0 && !eof) {
			ssize_t r = read_some(s, in, ibuf, IN_CHUNK);
			if (r < 0) {
				err = ct_error_os(errno, "%s", s->path);
				break;
			}
			eof = r == 0;
			any |= r > 0;
			z.next_in = (char *)ibuf;
			z.avail_in = (unsigned)r;
		}
		if (ret == BZ_STREAM_END) {
			if (z.avail_in == 0 && eof)
				break;
			// The next stream.
			BZ2_bzDecompressEnd(&z);
			char *next_in = z.next_in;
			unsigned avail_in = z.avail_in;
			memset(&z, 0, sizeof(z));
			if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
				return &ct_enomem;
			z.next_in = next_in;
			z.avail_in = avail_in;
		}
		z.next_out = (char *)obuf;
		z.avail_out = OUT_CHUNK;
		ret = BZ2_bzDecompress(&z);
		if ((err = sink_write(s, obuf, OUT_CHUNK - z.avail_out)))
			break;
		if (ret == BZ_OK && eof && z.avail_in == 0 && z.avail_out == OUT_CHUNK) {
			err = ct_error_create(CT_ERROR_CORRUPT, "%s: bzip2 stream is truncated", s->path);
			break;
		}
		if (ret != BZ_OK && ret != BZ_STREAM_END) {
			err = ct_error_create(CT_ERROR_CORRUPT, "%s: bzip2: %s", s->path,
					      ret == BZ_MEM_ERROR ? "out of memory" : "corrupt data");
			break;
		}
	}
	if (!err && !any)
		err = ct_error_create(CT_ERROR_CORRUPT, "%s: bzip2 stream is empty", s->path);
	BZ2_bzDecompressEnd(&z);
	return err;
}
#endif

// No compression: a pipe's bytes copied as they come (standard input), under the same caps.
static struct ct_error *copy_stream(int in, struct sink *s, uint8_t *ibuf, uint8_t *obuf)
{
	for (;;) {
		ssize_t r = read_some(s, in, ibuf, IN_CHUNK);
		if (r < 0) {
			if (errno == EAGAIN) {
				// A non-blocking pipe with no data yet: wait for it.
				fd_set set;
				FD_ZERO(&set);
				FD_SET(in, &set);
				select(in + 1, &set, NULL, NULL, NULL);
				continue;
			}
			return ct_error_os(errno, "%s", s->path);
		}
		if (r == 0)
			return NULL;
		struct ct_error *err = sink_write(s, ibuf, (size_t)r);
		if (err)
			return err;
	}
}

struct ct_error *ct_input_decompress(const char *path, enum ct_format format, uint64_t max_size, uint64_t max_space,
				     int *fd_ret, struct ct_decompress_status *status)
{
	if (!ct_input_is_compressed(format))
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s: %s input cannot be decompressed by this build", path,
				       ct_format_to_string(format));
	_cleanup_close_ int in = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (in < 0)
		return ct_error_os(errno, "%s", path);
	struct stat st;
	if (fstat(in, &st) < 0)
		return ct_error_os(errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "%s: not a regular file", path);
	return ct_input_decompress_fd(in, path, format, max_size, max_space, fd_ret, status);
}

struct ct_error *ct_input_decompress_fd(int in, const char *path, enum ct_format format, uint64_t max_size,
					uint64_t max_space, int *fd_ret, struct ct_decompress_status *status)
{
	memset(status, 0, sizeof(*status));
	typedef struct ct_error *(*decompress_fn)(int, struct sink *, uint8_t *, uint8_t *);
	decompress_fn fn = NULL;
	const char *lib = NULL;
	switch (format) {
	case CT_FORMAT_ZSTD:
#if CT_HAVE_ZSTD
		fn = decompress_zstd;
#endif
		lib = "libzstd";
		break;
	case CT_FORMAT_XZ:
#if CT_HAVE_LZMA
		fn = decompress_xz;
#endif
		lib = "liblzma";
		break;
	case CT_FORMAT_LZ4:
#if CT_HAVE_LZ4
		fn = decompress_lz4;
#endif
		lib = "liblz4";
		break;
	case CT_FORMAT_GZIP:
#if CT_HAVE_ZLIB
		fn = decompress_gzip;
#endif
		lib = "zlib";
		break;
	case CT_FORMAT_BZIP2:
#if CT_HAVE_BZIP2
		fn = decompress_bzip2;
#endif
		lib = "libbz2";
		break;
	case CT_FORMAT_UNKNOWN:
		fn = copy_stream; // standard input, not compressed: copied as it is
		lib = "";
		break;
	default:
		return ct_error_create(CT_ERROR_UNSUPPORTED, "%s: %s input cannot be decompressed by this build", path,
				       ct_format_to_string(format));
	}
	if (!fn)
		return ct_error_create(CT_ERROR_UNSUPPORTED,
				       "%s: %s core, but this build has no %s support (rebuild with %s); or decompress it first",
				       path, ct_format_to_string(format), lib, lib);
	_cleanup_close_ int out = ct_input_tmpfile();
	if (out < 0)
		return ct_error_os(errno, "%s: cannot create a temporary file in $TMPDIR to decompress into", path);
	_cleanup_free_ uint8_t *ibuf = malloc(IN_CHUNK);
	_cleanup_free_ uint8_t *obuf = malloc(OUT_CHUNK);
	if (!ibuf || !obuf)
		return &ct_enomem;
	struct sink s = { .fd = out,
			  .max = max_size ? max_size : CT_DEFAULT_MAX_CORE_SIZE,
			  .max_written = max_space ? max_space : UINT64_MAX,
			  .path = path };
	struct ct_error *err = fn(in, &s, ibuf, obuf);
	if (err && (err->code == CT_ERROR_CORRUPT || err->code == CT_ERROR_LIMIT) && s.size > 0) {
		// What decompressed before the stream broke (or the limit) is a truncated core: analyzed
		// as one, with the reason as a warning.
		status->partial = true;
		status->space_reached = s.space_reached;
		status->size_reached = s.size_reached;
		snprintf(status->message, sizeof(status->message),
			 "%s; the analysis uses the %llu bytes decompressed from the first %llu compressed bytes",
			 ct_error_message(err), (unsigned long long)s.size, (unsigned long long)s.in_read);
		ct_error_destroy(err);
		err = NULL;
	}
	if (!err)
		err = sink_finish(&s);
	if (err)
		return err;
	status->size = s.size;
	status->written = s.written;
	// Hand the descriptor over to the caller; the guard then closes nothing.
	*fd_ret = out;
	out = -1;
	return NULL;
}

bool ct_input_is_stdin(const char *path)
{
	return path && (!strcmp(path, "-") || !strcmp(path, "/dev/stdin") || !strcmp(path, "/dev/fd/0") ||
			!strcmp(path, "/proc/self/fd/0"));
}

bool ct_input_stdin_is_file(void)
{
	struct stat st;
	return fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
}

struct ct_error *ct_input_read_stdin(uint64_t max_size, uint64_t max_space, int *fd_ret,
				     struct ct_decompress_status *status)
{
	// A terminal would wait for a core typed by hand.
	if (isatty(STDIN_FILENO))
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT,
				       "standard input is a terminal: pipe a core into it (coretriage - < core, zcat core.gz | coretriage -)");
	int fd;
	struct ct_error *err =
		ct_input_decompress_fd(STDIN_FILENO, "standard input", CT_FORMAT_UNKNOWN, max_size, max_space, &fd, status);
	if (err)
		return err;
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_size == 0) {
		close(fd);
		return ct_error_create(CT_ERROR_INVALID_ARGUMENT, "standard input is empty: no core was piped in");
	}
	*fd_ret = fd;
	return NULL;
}
