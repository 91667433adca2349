// A store through NULL in an assembly function whose faulting instruction carries two rows of the
// line table (testdata/src/line_rows.S): the report's line must be the one gdb shows.
void store_zero(int *p);

int main(void)
{
	store_zero((int *)0);
	return 0;
}
