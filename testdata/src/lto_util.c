// The other half of lto_main.c: small enough for gcc -flto to inline into its caller there.
long parse_field(const char *const *fields, int i);

long parse_field(const char *const *fields, int i)
{
	const char *s = fields[i];
	long v = 0;
	while (*s >= '0' && *s <= '9') // s is NULL for the last field: the crash
		v = v * 10 + (*s++ - '0');
	return v;
}
