// The kernel log, decoded from the printk buffer in the dump's memory: the lockless ring buffer of
// Linux 5.10+ (kernel/printk/printk_ringbuffer.c) through the layout VMCOREINFO publishes, or the
// legacy log_buf of older kernels. Output is dmesg-like "[    t.tttttt] text" lines.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcore.h"
#include "util/bytes.h"
#include "util/cleanup.h"

// CONFIG_LOG_BUF_SHIFT is 12..25 and log_buf_len= can ask for more; 2^28 bytes of text (and 2^24
// descriptors) is far above any real setting and bounds the allocation a corrupt header can ask for.
#define MAX_DATA_BITS 28
#define MAX_DESC_BITS 24
// Legacy struct printk_log records are at least 16 bytes: a 256 MiB buffer holds < 2^24 of them.
#define MAX_LEGACY_RECORDS (1u << 24)

struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->oom)
		return;
	if (sb->len + n + 1 > sb->cap) {
		size_t ncap = sb->cap ? sb->cap : 65536;
		while (ncap < sb->len + n + 1)
			ncap *= 2;
		char *t = realloc(sb->s, ncap);
		if (!t) {
			sb->oom = true;
			return;
		}
		sb->s = t;
		sb->cap = ncap;
	}
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

/* One record: every line of a multi-line message gets the timestamp prefix, as dmesg prints it. */
static void add_record(struct strbuf *sb, uint64_t ts_nsec, const uint8_t *text, size_t len)
{
	char prefix[48];
	int plen = snprintf(prefix, sizeof(prefix), "[%5" PRIu64 ".%06" PRIu64 "] ", ts_nsec / 1000000000,
			    (ts_nsec % 1000000000) / 1000);
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || text[i] == '\n') {
			sb_add(sb, prefix, plen);
			// A NUL inside a record would cut the C string: show it as a space.
			for (size_t j = start; j < i; j++)
				sb_add(sb, text[j] ? (const char *)&text[j] : " ", 1);
			sb_add(sb, "\n", 1);
			start = i + 1;
			if (i + 1 == len)
				break; // trailing newline: no empty extra line
		}
	}
}

struct layout {
	uint64_t rb_desc_ring, rb_text_ring;
	uint64_t dr_count_bits, dr_descs, dr_infos, dr_head_id, dr_tail_id, dr_size;
	uint64_t d_size, d_state_var, d_text_blk, lpos_begin, lpos_next;
	uint64_t i_size, i_ts_nsec, i_text_len;
	uint64_t tr_size_bits, tr_data;
	uint64_t rb_size;
};

static bool get_layout(const struct ct_vmcoreinfo *vi, struct layout *l)
{
	return ct_vmcoreinfo_size(vi, "printk_ringbuffer", &l->rb_size) &&
	       ct_vmcoreinfo_offset(vi, "printk_ringbuffer.desc_ring", &l->rb_desc_ring) &&
	       ct_vmcoreinfo_offset(vi, "printk_ringbuffer.text_data_ring", &l->rb_text_ring) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc_ring.count_bits", &l->dr_count_bits) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc_ring.descs", &l->dr_descs) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc_ring.infos", &l->dr_infos) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc_ring.head_id", &l->dr_head_id) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc_ring.tail_id", &l->dr_tail_id) &&
	       ct_vmcoreinfo_size(vi, "prb_desc", &l->d_size) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc.state_var", &l->d_state_var) &&
	       ct_vmcoreinfo_offset(vi, "prb_desc.text_blk_lpos", &l->d_text_blk) &&
	       ct_vmcoreinfo_offset(vi, "prb_data_blk_lpos.begin", &l->lpos_begin) &&
	       ct_vmcoreinfo_offset(vi, "prb_data_blk_lpos.next", &l->lpos_next) &&
	       ct_vmcoreinfo_size(vi, "printk_info", &l->i_size) &&
	       ct_vmcoreinfo_offset(vi, "printk_info.ts_nsec", &l->i_ts_nsec) &&
	       ct_vmcoreinfo_offset(vi, "printk_info.text_len", &l->i_text_len) &&
	       ct_vmcoreinfo_offset(vi, "prb_data_ring.size_bits", &l->tr_size_bits) &&
	       ct_vmcoreinfo_offset(vi, "prb_data_ring.data", &l->tr_data);
}

static struct ct_error *read_alloc(struct ct_vmcore *vm, uint64_t addr, uint64_t len, uint8_t **ret)
{
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return &ct_enomem;
	struct ct_error *err = ct_vmcore_read(vm, addr, buf, len);
	if (err) {
		free(buf);
		return err;
	}
	*ret = buf;
	return NULL;
}

/*
 * The lockless ring buffer: descriptors (state + logical positions of the text block) and infos
 * (timestamp, text length) indexed by id % count; text blocks start with the id they belong to.
 * Walk ids from tail to head and keep committed/finalized records, like makedumpfile's printk.c and
 * the kernel's own get_data().
 */
static struct ct_error *read_lockless(struct ct_vmcore *vm, uint64_t prb_sym, struct strbuf *sb)
{
	const struct ct_vmcoreinfo *vi = &vm->vmcoreinfo;
	struct layout l;
	if (!get_layout(vi, &l))
		return ct_error_create(CT_ERROR_NOT_FOUND, "VMCOREINFO lacks the printk ring buffer layout");
	uint64_t prb;
	// SYMBOL(prb) is the pointer variable `struct printk_ringbuffer *prb`, not the buffer.
	struct ct_error *err = ct_vmcore_read_u64(vm, prb_sym, &prb);
	if (err)
		return ct_error_wrap(err, "prb");
	if (l.rb_size > 4096)
		return ct_error_create(CT_ERROR_CORRUPT, "SIZE(printk_ringbuffer) %" PRIu64 " is implausible", l.rb_size);
	uint8_t rbuf[4096];
	err = ct_vmcore_read(vm, prb, rbuf, l.rb_size);
	if (err)
		return ct_error_wrap(err, "printk_ringbuffer");
	struct ct_bytes rb = { .data = rbuf, .size = l.rb_size };
	uint64_t dr = l.rb_desc_ring, tr = l.rb_text_ring, count_bits, descs, infos, head_id, tail_id, size_bits,
		 data;
	if (!ct_bytes_uint(&rb, dr + l.dr_count_bits, 4, &count_bits) ||
	    !ct_bytes_uint(&rb, dr + l.dr_descs, 8, &descs) || !ct_bytes_uint(&rb, dr + l.dr_infos, 8, &infos) ||
	    !ct_bytes_uint(&rb, dr + l.dr_head_id, 8, &head_id) ||
	    !ct_bytes_uint(&rb, dr + l.dr_tail_id, 8, &tail_id) ||
	    !ct_bytes_uint(&rb, tr + l.tr_size_bits, 4, &size_bits) || !ct_bytes_uint(&rb, tr + l.tr_data, 8, &data))
		return ct_error_create(CT_ERROR_CORRUPT, "printk_ringbuffer offsets outside SIZE(printk_ringbuffer)");
	if (count_bits > MAX_DESC_BITS || size_bits > MAX_DATA_BITS || size_bits < 4)
		return ct_error_create(CT_ERROR_CORRUPT, "printk ring buffer sizes 2^%" PRIu64 " descriptors, 2^%" PRIu64
				       " bytes are implausible", count_bits, size_bits);
	if (l.d_size > 256 || l.i_size > 4096)
		return ct_error_create(CT_ERROR_CORRUPT, "printk descriptor sizes are implausible");
	uint64_t count = 1ull << count_bits, data_size = 1ull << size_bits;
	_cleanup_free_ uint8_t *descbuf = NULL, *infobuf = NULL, *text = NULL;
	if ((err = read_alloc(vm, descs, count * l.d_size, &descbuf)) ||
	    (err = read_alloc(vm, infos, count * l.i_size, &infobuf)) || (err = read_alloc(vm, data, data_size, &text)))
		return ct_error_wrap(err, "printk ring buffer");
	struct ct_bytes db = { .data = descbuf, .size = count * l.d_size };
	struct ct_bytes ib = { .data = infobuf, .size = count * l.i_size };
	// printk_ringbuffer.h: the top two bits of state_var are the state, the rest the id.
	const uint64_t flags_shift = 62, id_mask = ~(3ull << flags_shift);
	const uint64_t desc_committed = 1, desc_finalized = 2;
	uint64_t id = tail_id & id_mask;
	head_id &= id_mask;
	for (uint64_t n = 0; n <= count; n++, id = (id + 1) & id_mask) {
		uint64_t d = (id % count) * l.d_size, i = (id % count) * l.i_size;
		uint64_t sv = ct_bytes_uint_or0(&db, d + l.d_state_var, 8);
		uint64_t state = sv >> flags_shift;
		// A descriptor reused for a newer id, or one still being written, has no text for this id.
		if ((sv & id_mask) == id && (state == desc_committed || state == desc_finalized)) {
			uint64_t begin = ct_bytes_uint_or0(&db, d + l.d_text_blk + l.lpos_begin, 8);
			uint64_t next = ct_bytes_uint_or0(&db, d + l.d_text_blk + l.lpos_next, 8);
			uint64_t ts = ct_bytes_uint_or0(&ib, i + l.i_ts_nsec, 8);
			uint64_t text_len = ct_bytes_uint_or0(&ib, i + l.i_text_len, 2);
			uint64_t off, avail;
			bool ok = true;
			// Data-less blocks have bit 0 set in their positions (FAILED_LPOS, NO_LPOS).
			if ((begin & 1) || begin == next) {
				ok = false;
			} else if (begin >> size_bits == next >> size_bits && begin < next) {
				off = begin & (data_size - 1);
				avail = next - begin;
			} else if ((begin + data_size) >> size_bits == next >> size_bits) {
				// The block wrapped: it was written at the start of the buffer.
				off = 0;
				avail = next & (data_size - 1);
			} else {
				ok = false;
			}
			// Skip the id word that starts each block; a text_len beyond the block is truncated.
			if (ok && avail >= 8 && ct_in_bounds(data_size, off, avail)) {
				avail -= 8;
				if (text_len > avail)
					text_len = avail;
				add_record(sb, ts, text + off + 8, text_len);
			}
		}
		if (id == head_id)
			break;
	}
	return sb->oom ? &ct_enomem : NULL;
}

/* Before 5.10: log_buf holds struct printk_log records back to back; len 0 means "wrap to 0". */
static struct ct_error *read_legacy(struct ct_vmcore *vm, struct strbuf *sb)
{
	const struct ct_vmcoreinfo *vi = &vm->vmcoreinfo;
	uint64_t log_buf_sym, len_sym, first_sym, next_sym, rec_size, o_ts, o_len, o_text_len;
	if (!ct_vmcoreinfo_symbol(vi, "log_buf", &log_buf_sym) || !ct_vmcoreinfo_symbol(vi, "log_buf_len", &len_sym) ||
	    !ct_vmcoreinfo_symbol(vi, "log_first_idx", &first_sym) ||
	    !ct_vmcoreinfo_symbol(vi, "log_next_idx", &next_sym) || !ct_vmcoreinfo_size(vi, "printk_log", &rec_size) ||
	    !ct_vmcoreinfo_offset(vi, "printk_log.ts_nsec", &o_ts) || !ct_vmcoreinfo_offset(vi, "printk_log.len", &o_len) ||
	    !ct_vmcoreinfo_offset(vi, "printk_log.text_len", &o_text_len))
		return ct_error_create(CT_ERROR_NOT_FOUND, "VMCOREINFO names neither prb nor log_buf");
	uint64_t buf_addr;
	uint32_t buf_len, first, next;
	struct ct_error *err;
	if ((err = ct_vmcore_read_u64(vm, log_buf_sym, &buf_addr)) || (err = ct_vmcore_read_u32(vm, len_sym, &buf_len)) ||
	    (err = ct_vmcore_read_u32(vm, first_sym, &first)) || (err = ct_vmcore_read_u32(vm, next_sym, &next)))
		return ct_error_wrap(err, "log_buf");
	if (buf_len > (1u << MAX_DATA_BITS) || rec_size < 12 || rec_size > 256)
		return ct_error_create(CT_ERROR_CORRUPT, "log_buf_len %" PRIu32 " is implausible", buf_len);
	_cleanup_free_ uint8_t *buf = NULL;
	if ((err = read_alloc(vm, buf_addr, buf_len, &buf)))
		return ct_error_wrap(err, "log_buf");
	struct ct_bytes b = { .data = buf, .size = buf_len };
	uint64_t idx = first;
	for (uint32_t n = 0; n < MAX_LEGACY_RECORDS && idx != next; n++) {
		uint64_t len, text_len, ts;
		if (!ct_bytes_uint(&b, idx + o_len, 2, &len))
			break;
		if (len == 0) {
			idx = 0;
			continue;
		}
		ts = ct_bytes_uint_or0(&b, idx + o_ts, 8);
		text_len = ct_bytes_uint_or0(&b, idx + o_text_len, 2);
		if (ct_in_bounds(b.size, idx + rec_size, text_len))
			add_record(sb, ts, buf + idx + rec_size, text_len);
		idx += len;
	}
	return sb->oom ? &ct_enomem : NULL;
}

struct ct_error *ct_printk_read(struct ct_vmcore *vm, char **text_ret, size_t *len_ret)
{
	struct strbuf sb = { 0 };
	uint64_t prb;
	struct ct_error *err;
	if (ct_vmcoreinfo_symbol(&vm->vmcoreinfo, "prb", &prb))
		err = read_lockless(vm, prb, &sb);
	else
		err = read_legacy(vm, &sb);
	if (err) {
		free(sb.s);
		return ct_error_wrap(err, "kernel log");
	}
	if (!sb.s)
		sb_add(&sb, "", 0);
	if (sb.oom) {
		free(sb.s);
		return &ct_enomem;
	}
	*text_ret = sb.s;
	*len_ret = sb.len;
	return NULL;
}
