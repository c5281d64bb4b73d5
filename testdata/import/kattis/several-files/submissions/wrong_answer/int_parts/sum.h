// Shared by main.cpp and sum.cpp: two sources and a header make one program.
#pragma once
#include <vector>

long long sum(const std::vector<long long> &xs);
