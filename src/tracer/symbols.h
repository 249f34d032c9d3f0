/*
 * symbols.h - name a code address of this process: function, source file, line.
 *
 * Place in the data flow: measurement.  The function hooks (funcs.c) call it
 * once per distinct function address.  dladdr() cannot do this job: it sees
 * only the dynamic symbol table, so the static functions of an executable
 * (and every function of a non-exported PIE) stay nameless.  Here elfutils'
 * libdwfl reads the full symbol table (.symtab, or one of a separate debug
 * file) and, when there is DWARF, the line table.
 *
 * Not thread-safe: the tracer calls it from its recording thread only.
 * Never prints; every failure is "no name" (NULL).
 */
#ifndef UNPERTURB_SYMBOLS_H
#define UNPERTURB_SYMBOLS_H

#include <stdint.h>

/* Report the modules (executable, shared libraries, vDSO) mapped into this
 * process.  Optional: upt_sym_name() calls it on first use.  Returns 0, or -1
 * when libdwfl could not be set up (then every lookup answers NULL). */
int upt_sym_init(void);

/* The name of the function containing `addr` (not demangled), or, for an
 * address in a mapped file without a symbol for it, "file+0xOFFSET" (the
 * offset is the same in every process, unlike the address).  NULL when the
 * address is in no mapped file.  `file` and `line` (each may be NULL) receive
 * the source position of `addr` when the module has DWARF line information,
 * else NULL and 0; for a function's address that is the line of its
 * declarator, or of its opening brace if that has a line of its own.
 *
 * The strings stay valid until the next upt_sym_name() or upt_sym_fini():
 * copy what you keep.  A miss rereads /proc/self/maps once, so libraries
 * loaded after the first lookup (dlopen) are found too. */
const char *upt_sym_name(const void *addr, const char **file, uint32_t *line);

/* Release libdwfl's tables (open files, DWARF).  A later upt_sym_name()
 * starts over. */
void upt_sym_fini(void);

#endif
