// cxx.cpp - C++ crashes where the names only make sense demangled (-O1 -g).
//
//   lookup: inventory::Registry<inventory::Item>::quantity_of(int) const
//           asks find() for an id that is not registered; find() returns
//           nullptr and quantity_of reads ->quantity (offset 0x20, after a
//           32-byte std::string): SIGSEGV SEGV_MAPERR at 0x20.
//   throw:  config::Field<int>::parse(char const*) throws
//           std::runtime_error and nothing catches it: __cxa_throw finds no
//           handler and calls std::terminate -> abort(), SIGABRT.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline, noclone))

namespace inventory {

struct Item {
	std::string name;
	int quantity;
};

template <typename T> class Registry {
public:
	void add(T *item) { items_.push_back(item); }

	NOINLINE T *find(int id) const
	{
		for (T *item : items_)
			if (item->quantity == id)
				return item;
		return nullptr;
	}

	NOINLINE int quantity_of(int id) const
	{
		return find(id)->quantity;
	}

private:
	std::vector<T *> items_;
};

} // namespace inventory

namespace config {

template <typename T> struct Field {
	const char *key;
	T value;

	NOINLINE void parse(const char *text)
	{
		char *end = nullptr;
		long v = std::strtol(text, &end, 10);
		if (end == text || *end != '\0')
			throw std::runtime_error(std::string("bad value for ") + key + ": " + text);
		value = static_cast<T>(v);
	}
};

} // namespace config

int main(int argc, char **argv)
{
	if (argc > 1 && std::strcmp(argv[1], "throw") == 0) {
		config::Field<int> port{ "port", 0 };
		port.parse("80x");
		std::printf("%d\n", port.value);
		return 0;
	}
	inventory::Registry<inventory::Item> reg;
	inventory::Item a{ "bolt", 7 }, b{ "nut", 9 };
	reg.add(&a);
	reg.add(&b);
	std::printf("%d\n", reg.quantity_of(11));
	return 0;
}
