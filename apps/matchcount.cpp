// matchcount: prints the number of perfect matchings (the permanent) of the graph or matrix
// in FILE; the program itself is cli_main (apps/cli_main.cpp).
#include "cli_main.hpp"

int main(int argc, char** argv) { return cli_main(argc, argv); }
