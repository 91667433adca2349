/* rcgrid.c - bad subscripts of multi-dimensional arrays and of an array reached
 * through a loaded pointer, whose origin is known by construction
 * (docs/root-cause.md, issue 24).  argv[1] picks the mode, argv[2] and argv[3]
 * the subscripts (atoi: the compiler cannot fold them); every function on the
 * value's way is a real frame (KEEP).
 *
 *   grid I J    a local int grid[4][8] that grid_at() fills and reads grid[i][j]
 *               from (the stack's memory; the cases use negative subscripts, so
 *               that the address stays below the stack, canonical, unmapped)
 *   ggrid I J   a global int ggrid[4][8] that ggrid_at() reads ggrid[i][j] from
 *   mgrid I J   the member array cells[4][8] of a calloc'ed struct board that
 *               board_at() reads b->cells[i][j] from (a pointer parameter)
 *   gload I     the member array items[16] of a malloc'ed struct table that the
 *               global pointer g_table points to: table_item() reads
 *               g_table->items[i] (the struct reached through a load)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
/* noipa: no clone, no IPA-known return value or register use across the call. */
#define KEEP __attribute__((noipa))
#endif

KEEP int grid_at(int i, int j, int seed)
{
	int grid[4][8];
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 8; k++)
			grid[r][k] = seed * (r + k);
	return grid[i][j];
}

/* Not static: a static array only main writes could be folded. */
int ggrid[4][8];

KEEP int ggrid_at(int i, int j)
{
	return ggrid[i][j];
}

struct board {
	long id;
	int cells[4][8];
};

KEEP int board_at(const struct board *b, int i, int j)
{
	return b->cells[i][j];
}

struct table {
	long count;
	int items[16];
};

/* Not static: clang would turn a static pointer set once from malloc into a global of its own. */
struct table *g_table;

KEEP int table_item(int i)
{
	return g_table->items[i];
}

KEEP int run_grid(const char *a, const char *b, int seed)
{
	return grid_at(atoi(a), atoi(b), seed) + 1;
}

KEEP int run_ggrid(const char *a, const char *b)
{
	return ggrid_at(atoi(a), atoi(b)) + 1;
}

KEEP int run_mgrid(const char *a, const char *b, int seed)
{
	struct board *bd = calloc(1, sizeof *bd);
	if (!bd)
		return 0;
	bd->id = seed;
	return board_at(bd, atoi(a), atoi(b)) + 1;
}

KEEP int run_gload(const char *a, int seed)
{
	g_table = malloc(sizeof *g_table);
	if (!g_table)
		return 0;
	g_table->count = seed;
	for (int k = 0; k < 16; k++)
		g_table->items[k] = seed * k;
	return table_item(atoi(a)) + 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "0";
	const char *b = argc > 3 ? argv[3] : "0";
	int r = 0;
	ggrid[argc & 3][argc & 7] = argc; /* the array is not all zero: ggrid_at() must read it */
	if (strcmp(mode, "grid") == 0)
		r = run_grid(a, b, argc);
	else if (strcmp(mode, "ggrid") == 0)
		r = run_ggrid(a, b);
	else if (strcmp(mode, "mgrid") == 0)
		r = run_mgrid(a, b, argc);
	else if (strcmp(mode, "gload") == 0)
		r = run_gload(a, argc);
	printf("%d\n", r);
	return 0;
}
