// C++: an exception escapes a noexcept function; the personality routine calls std::terminate.
#include <cstdio>
#include <stdexcept>
#include <string>

__attribute__((noinline)) static int parse_port(const std::string &s)
{
	if (s.empty() || s[0] < '0' || s[0] > '9')
		throw std::invalid_argument("port is not a number: " + s);
	return std::stoi(s);
}

__attribute__((noinline)) int load_port(const char *text) noexcept
{
	return parse_port(text);
}

int main(int argc, char **argv)
{
	std::printf("%d\n", load_port(argc > 5 ? "80" : "http"));
	return 0;
}
