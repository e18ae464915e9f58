/* bench_place_code(): moves the program's machine code to other physical pages (Linux; elsewhere it
 * does nothing and returns -1), the same bytes at the same addresses.
 *
 * The same program runs at different speeds depending on the physical pages its code lies in, where
 * the code is larger than the instruction cache, and a program keeps its pages for as long as its file
 * stays in the page cache (docs/benchmarks.md, "Where the code lies").
 * The C loops (c_loop.py, ab.py) and the C++ loops (timing.hpp) call this before each timed round,
 * so that the rounds sample placements and their median is the usual one. 0 when it moved the code.
 */
#ifndef BENCH_PLACEMENT_H
#define BENCH_PLACEMENT_H

#if defined(__linux__)
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Copies the pages [start, end) into new anonymous pages and maps those in their place. A few pages
   taken first, and given back after, make the allocator hand out other pages than the last time. */
static int bench_place_pages(uintptr_t start, uintptr_t end)
{
    const size_t len = end - start, skip = 4096 * (size_t)(1 + rand() % 61);
    void *other = mmap(NULL, skip, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    void *copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int status = -1;
    if (copy != MAP_FAILED) {
        memcpy(copy, (const void *)start, len);
        if (mprotect(copy, len, PROT_READ | PROT_EXEC) == 0
            && mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)start) != MAP_FAILED)
            status = 0;
        else
            munmap(copy, len);
    }
    if (other != MAP_FAILED) munmap(other, skip);
    return status;
}

/* dl_iterate_phdr's callback: the executable segments of the first object, the program itself. */
static int bench_place_program(struct dl_phdr_info *info, size_t size, void *moved)
{
    const uintptr_t page = 4096;
    int k;
    (void)size;
    for (k = 0; k < info->dlpi_phnum; ++k) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[k];
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
            const uintptr_t start = (info->dlpi_addr + p->p_vaddr) & ~(page - 1);
            const uintptr_t end = (info->dlpi_addr + p->p_vaddr + p->p_memsz + page - 1) & ~(page - 1);
            *(int *)moved += bench_place_pages(start, end) == 0;
        }
    }
    return 1;
}

static int bench_place_code(void)
{
    int moved = 0;
    dl_iterate_phdr(bench_place_program, &moved);
    return moved > 0 ? 0 : -1;
}
#else
static int bench_place_code(void) { return -1; }
#endif

#endif
