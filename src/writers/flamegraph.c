// Interactive SVG flame graph of weighted stacks: one rect per merged frame, width proportional to
// the count, the root at the bottom (Brendan Gregg's layout), a <title> tooltip on every rect and
// inline JavaScript to zoom into a frame by clicking it (Escape or "Reset zoom" to go back).
// Self-contained: no external scripts or fonts, so it opens from a CI artifact as it is.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "writers/writers.h"
#include "util/keyhash.h"

/** Image width and frame height in pixels, as flamegraph.pl's defaults. */
#define FG_WIDTH 1200
#define FG_FRAME_HEIGHT 16
#define FG_PAD_TOP 40
#define FG_PAD_SIDE 10
/** Deeper frames are cut: a million-frame recursion would make an unusable, huge SVG. */
#define FG_MAX_DEPTH 512
/** Rects narrower than this are not drawn (invisible anyway; keeps the file small). */
#define FG_MIN_WIDTH 0.1
/** Approximate width of a character of the 12px monospace font, for fitting labels. */
#define FG_CHAR_WIDTH 7.2

struct node {
	const char *name; /* borrowed from the stacks */
	unsigned long long count;
	struct node **children;
	size_t num_children, cap_children;
	struct node *parent; /* NULL for the root */
};

/*
 * The nodes by (parent, name), so finding a child is one lookup: a node with 100,000 distinct
 * children (threads of a hostile dump, each in another function) would make a linear search
 * quadratic. Keyed hash (util/keyhash.h).
 */
struct index {
	struct node **slots;
	size_t mask, used;
	uint64_t key;
};

static uint64_t node_hash(const struct index *ix, const struct node *parent, const char *name)
{
	return ct_hash_bytes(name, strlen(name), ix->key ^ ct_hash_mix((uint64_t)(uintptr_t)parent));
}

static bool index_grow(struct index *ix, struct node *root);

static struct node **index_slot(struct index *ix, struct node *parent, const char *name)
{
	size_t s = (size_t)node_hash(ix, parent, name) & ix->mask;
	while (ix->slots[s] && !(ix->slots[s]->parent == parent && !strcmp(ix->slots[s]->name, name)))
		s = (s + 1) & ix->mask;
	return &ix->slots[s];
}

static void index_insert_tree(struct index *ix, struct node *n)
{
	for (size_t i = 0; i < n->num_children; i++) {
		*index_slot(ix, n, n->children[i]->name) = n->children[i];
		index_insert_tree(ix, n->children[i]);
	}
}

static bool index_grow(struct index *ix, struct node *root)
{
	size_t n = ix->slots ? 2 * (ix->mask + 1) : 1024;
	struct node **slots = calloc(n, sizeof(*slots));
	if (!slots)
		return false;
	free(ix->slots);
	ix->slots = slots;
	ix->mask = n - 1;
	index_insert_tree(ix, root);
	return true;
}

static struct node *child(struct index *ix, struct node *root, struct node *n, const char *name)
{
	if ((ix->used + 1) * 2 > ix->mask + 1 && !index_grow(ix, root))
		return NULL;
	struct node **slot = index_slot(ix, n, name);
	if (*slot)
		return *slot;
	if (n->num_children == n->cap_children) {
		size_t cap = n->cap_children ? 2 * n->cap_children : 4;
		struct node **c = realloc(n->children, cap * sizeof(*c));
		if (!c)
			return NULL;
		n->children = c;
		n->cap_children = cap;
	}
	struct node *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = name;
	c->parent = n;
	n->children[n->num_children++] = c;
	*slot = c;
	ix->used++;
	return c;
}

static void free_tree(struct node *n)
{
	for (size_t i = 0; i < n->num_children; i++) {
		free_tree(n->children[i]);
		free(n->children[i]);
	}
	free(n->children);
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static size_t tree_depth(struct node *n)
{
	size_t d = 0;
	// Sorted children: deterministic output, and the alphabetical x order of flamegraph.pl.
	if (n->num_children > 1)
		qsort(n->children, n->num_children, sizeof(*n->children), cmp_node);
	for (size_t i = 0; i < n->num_children; i++) {
		size_t c = tree_depth(n->children[i]);
		if (c > d)
			d = c;
	}
	return d + 1;
}

// Untrusted text in SVG: entities, visible controls, U+FFFD for invalid bytes, cut on character
// boundaries (writers/sanitize.h), so the file stays well-formed XML whatever the names hold.
static void xml_text(FILE *out, const char *s, size_t max_chars)
{
	ct_text_put(out, s, CT_TEXT_XML, max_chars);
}

// A stable warm color from the name (flamegraph.pl's "hot" palette).
static void color(const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = (int)((h >> 8) % 230);
	*b = (int)((h >> 16) % 55);
}

struct layout {
	FILE *out;
	double scale; /* pixels per count */
	size_t depth; /* rows */
	unsigned long long total;
	const char *unit;
};

static void draw(struct layout *l, const struct node *n, double x, size_t level, const char *label)
{
	double w = (double)n->count * l->scale;
	if (w < FG_MIN_WIDTH)
		return;
	double y = FG_PAD_TOP + (double)(l->depth - 1 - level) * FG_FRAME_HEIGHT;
	int r, g, b;
	color(label, &r, &g, &b);
	if (level == 0) {
		r = 220;
		g = 220;
		b = 220;
	}
	FILE *out = l->out;
	fprintf(out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%zu\"><title>", x - FG_PAD_SIDE, w, level);
	xml_text(out, label, SIZE_MAX);
	fprintf(out, " (%llu %s%s, %.2f%%)</title>", n->count, l->unit, n->count == 1 ? "" : "s",
		100.0 * (double)n->count / (double)l->total);
	fprintf(out, "<rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>", x, y,
		w, FG_FRAME_HEIGHT - 1, r, g, b);
	size_t fit = w > 12 ? (size_t)((w - 6) / FG_CHAR_WIDTH) : 0;
	fprintf(out, "<text x=\"%.3f\" y=\"%.1f\">", x + 3, y + FG_FRAME_HEIGHT - 4.5);
	if (fit >= 3) {
		size_t len = ct_text_chars(label);
		if (len <= fit) {
			xml_text(out, label, len);
		} else {
			xml_text(out, label, fit - 2);
			fputs("..", out);
		}
	}
	fputs("</text></g>\n", out);
	if (level + 1 >= FG_MAX_DEPTH)
		return;
	double cx = x;
	for (size_t i = 0; i < n->num_children; i++) {
		draw(l, n->children[i], cx, level + 1, n->children[i]->name);
		cx += (double)n->children[i]->count * l->scale;
	}
}

// A literal (not an array) so printf format checking sees it.
#define FG_SCRIPT \
	"<script type=\"text/ecmascript\"><![CDATA[\n" \
	"var W=%d,P=%d,CW=%.1f;\n" \
	"function frames(){return document.querySelectorAll('g.f');}\n" \
	"function fit(g,w){var t=g.querySelector('text'),n=g.querySelector('title').textContent;\n" \
	" n=n.replace(/ \\([0-9]+ [a-z]+, [0-9.]+%%\\)$/,'');var c=Math.floor((w-6)/CW);\n" \
	" t.textContent=c<3?'':(n.length<=c?n:n.substring(0,c-2)+'..');}\n" \
	"function zoom(z){var x0=+z.dataset.x,w0=+z.dataset.w,d0=+z.dataset.d,s=(W-2*P)/w0;\n" \
	" frames().forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d,r=g.querySelector('rect'),\n" \
	"  t=g.querySelector('text'),nx,nw;\n" \
	"  if(d<d0){if(x<=x0+1e-6&&x+w>=x0+w0-1e-6){nx=P;nw=W-2*P;}else{g.style.display='none';return;}}\n" \
	"  else if(x+1e-6<x0||x+w>x0+w0+1e-6){g.style.display='none';return;}\n" \
	"  else{nx=P+(x-x0)*s;nw=w*s;}\n" \
	"  g.style.display='';r.setAttribute('x',nx);r.setAttribute('width',nw);t.setAttribute('x',nx+3);fit(g,nw);});\n" \
	" document.getElementById('reset').style.display='';}\n" \
	"function reset(){frames().forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,r=g.querySelector('rect');\n" \
	" g.style.display='';r.setAttribute('x',x+P);r.setAttribute('width',w);\n" \
	" g.querySelector('text').setAttribute('x',x+P+3);fit(g,w);});\n" \
	" document.getElementById('reset').style.display='none';}\n" \
	"frames().forEach(function(g){g.addEventListener('click',function(){zoom(g);});});\n" \
	"document.getElementById('reset').addEventListener('click',reset);\n" \
	"document.addEventListener('keydown',function(e){if(e.key==='Escape')reset();});\n" \
	"]]></script>\n"

int ct_write_flamegraph(FILE *out, const struct ct_folded_stack *stacks, size_t num_stacks, const char *title,
			const char *unit)
{
	struct node root = { .name = "all" };
	struct index ix = { .key = ct_hash_key(&root) };
	int ret = 0;
	for (size_t i = 0; i < num_stacks; i++) {
		struct node *n = &root;
		root.count += stacks[i].count;
		for (size_t k = 0; k < stacks[i].num_frames && k + 1 < FG_MAX_DEPTH; k++) {
			n = child(&ix, &root, n, stacks[i].frames[k]);
			if (!n) {
				ret = -1;
				goto out;
			}
			n->count += stacks[i].count;
		}
	}
	size_t depth = tree_depth(&root);
	int height = FG_PAD_TOP + (int)depth * FG_FRAME_HEIGHT + 30;
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:monospace;font-size:12px;fill:#000;pointer-events:none}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}"
		"#title{font-size:17px;text-anchor:middle}#reset{fill:#00c;cursor:pointer}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\">",
		FG_WIDTH, height, FG_WIDTH, height, FG_WIDTH / 2);
	xml_text(out, title ? title : "Crash stacks", 200);
	fprintf(out, "</text>\n<text id=\"reset\" x=\"%d\" y=\"24\" style=\"display:none\">Reset zoom</text>\n",
		FG_PAD_SIDE);
	fprintf(out, "<text x=\"%d\" y=\"%d\">%llu %s%s; click a frame to zoom, Escape to reset</text>\n", FG_PAD_SIDE,
		height - 10, root.count, unit, root.count == 1 ? "" : "s");
	if (root.count) {
		struct layout l = { out, (double)(FG_WIDTH - 2 * FG_PAD_SIDE) / (double)root.count, depth, root.count, unit };
		fputs("<g id=\"frames\">\n", out);
		draw(&l, &root, FG_PAD_SIDE, 0, "all");
		fputs("</g>\n", out);
	}
	fprintf(out, FG_SCRIPT, FG_WIDTH, FG_PAD_SIDE, FG_CHAR_WIDTH);
	fputs("</svg>\n", out);
out:
	free(ix.slots);
	free_tree(&root);
	return ret || ferror(out) ? -1 : 0;
}
