/* mca demo: placeholder until the runtime lands. */
#include <stdio.h>

#include "mca_tool.h"

int mca_cmd_demo(int argc, char **argv)
{
  puts("demo");
  return 0;
}
