/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `superpass replay TRACE`: a trace replayed in the simulator (superpass::replay). */
#ifndef SP_TOOLS_REPLAY_H
#define SP_TOOLS_REPLAY_H

/* Exit codes: 0 done, 1 an output failed, 2 bad usage or an unusable trace. */
int replay_main(int argc, char **argv);

#endif
