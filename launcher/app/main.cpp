#include "app/launcher_main.hpp"

int main(int argc, char** argv) { return launcher::launcher_main(argc, argv); }
