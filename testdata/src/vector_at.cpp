// C++: std::vector::at out of range throws std::out_of_range, never caught.
#include <cstdio>
#include <vector>

__attribute__((noinline)) static int nth_score(const std::vector<int> &scores, size_t n)
{
	return scores.at(n);
}

int main(int argc, char **argv)
{
	std::vector<int> scores = { 10, 20, 30 };
	std::printf("%d\n", nth_score(scores, (size_t)argc + 6));
	return 0;
}
