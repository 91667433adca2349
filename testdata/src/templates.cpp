// Namespaces and templates (issue 10): a comparator called from std::sort's inlined internals
// dereferences a NULL element; the frames are qualified C++ names without return types.
#include <algorithm>
#include <cstdio>
#include <vector>

namespace geo {
struct Shape {
	double w, h;
};

namespace {
__attribute__((noinline)) double area(const Shape *s)
{
	return s->w * s->h; // s is NULL for the injected element: the crash
}
} // namespace

template <typename T> struct ByArea {
	bool operator()(const T *a, const T *b) const { return area(a) < area(b); }
};

template <typename T> class Catalog {
public:
	void add(T *s) { items_.push_back(s); }
	__attribute__((noinline)) void sort_by_area()
	{
		std::sort(items_.begin(), items_.end(), ByArea<T>());
	}
	size_t size() const { return items_.size(); }

private:
	std::vector<T *> items_;
};
} // namespace geo

int main(int argc, char **argv)
{
	(void)argv;
	static geo::Shape shapes[4] = { { 1, 2 }, { 3, 4 }, { 0.5, 1 }, { 2, 2 } };
	geo::Catalog<geo::Shape> c;
	for (auto &s : shapes)
		c.add(&s);
	c.add(argc > 3 ? &shapes[0] : nullptr);
	c.sort_by_area();
	std::printf("%zu\n", c.size());
	return 0;
}
