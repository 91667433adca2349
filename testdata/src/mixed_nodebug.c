// Built without -g (mixed_debug.c): a lookup with no DWARF, no source lines.
struct entry {
	long key, value;
	const struct entry *next;
};

__attribute__((noinline)) long table_lookup(const struct entry *table, long key)
{
	for (const struct entry *e = table; ; e = e->next) {
		if (e->key == key)
			return e->value;
	}
}
