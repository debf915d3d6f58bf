/* gcc oracle for tpbsim's instruction layer (isa/oracle_test.go).
 *   oracle layout   prints "STRUCT path offset size" for every field, and "STRUCT sizeof N"
 *   oracle fill     fills every field of every struct with distinct values, prints "STRUCT hex"
 *   oracle parse    reads "STRUCT hex" lines, prints "STRUCT path=value" for every field
 *   oracle bits     for each byte value, prints the bitfields of the 1-byte bitfield types */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "tpb_structs.h"

#define HDR_EV(X, XA, S) \
    X(S, "opcode", header.opcode) X(S, "inst_word_len", header.inst_word_len) \
    X(S, "debug_cmd", header.debug_cmd) X(S, "debug_hint", header.debug_hint) \
    X(S, "events.wait_mode", events.wait_mode) X(S, "events.wait_idx", events.wait_idx) \
    X(S, "events.update_mode", events.update_mode) X(S, "events.update_idx", events.update_idx) \
    X(S, "events.semaphore_value", events.semaphore_value)
#define T4(X, XA, S, n) X(S, #n ".start_addr", n.start_addr) XA(S, #n ".step_elem", n.step_elem, 4) \
    XA(S, #n ".num_elem", n.num_elem, 4)

#define S4D4_TR_FIELDS(X, XA, S) HDR_EV(X, XA, S) T4(X, XA, S, src_mem_pattern) \
    X(S, "in_dtype", in_dtype) X(S, "out_dtype", out_dtype) X(S, "num_active_channels", num_active_channels) \
    X(S, "negated", negated) X(S, "op", op) X(S, "op_dim", op_dim) X(S, "mask_enable", mask_enable) \
    XA(S, "reserved1", reserved1, 5) T4(X, XA, S, dst_mem_pattern)
#define CTRL_IM_FIELDS(X, XA, S) HDR_EV(X, XA, S) X(S, "param_ram_offset", param_ram_offset) \
    X(S, "imm_ptr_select", imm_ptr_select) XA(S, "reserved0", reserved0, 17) XA(S, "immediate", immediate, 32)
#define D4_MR_FIELDS(X, XA, S) HDR_EV(X, XA, S) XA(S, "unknown12", unknown12, 16) \
    X(S, "dst_element_count", dst_element_count) X(S, "dtype", dtype) X(S, "unknown33", unknown33) \
    X(S, "num_active_channels", num_active_channels) X(S, "unknown35", unknown35) \
    X(S, "serialization_mode", serialization_mode) XA(S, "unknown37", unknown37, 3) X(S, "set_value", set_value) \
    T4(X, XA, S, dst_mem_pattern)
#define DMA_DIRECT2D_FIELDS(X, XA, S) HDR_EV(X, XA, S) X(S, "dma_configs", dma_configs) X(S, "semaphore", semaphore) \
    X(S, "sem_increment", sem_increment) X(S, "compute_op", compute_op) X(S, "src_start_addr", src_start_addr) \
    XA(S, "src_step_elem", src_step_elem, 2) XA(S, "src_num_elem", src_num_elem, 2) X(S, "src_elem_size", src_elem_size) \
    X(S, "src_bound_reg", src_bound_reg) X(S, "dst_bound_reg", dst_bound_reg) X(S, "dst_start_addr", dst_start_addr) \
    XA(S, "dst_step_elem", dst_step_elem, 2) XA(S, "dst_num_elem", dst_num_elem, 2) X(S, "dst_elem_size", dst_elem_size) \
    X(S, "in_dtype", in_dtype) X(S, "out_dtype", out_dtype)
#define DMA_INDIRECT1D_FIELDS(X, XA, S) HDR_EV(X, XA, S) X(S, "semaphore", semaphore) X(S, "sem_increment", sem_increment) \
    X(S, "idx_num_active_channels", idx_num_active_channels) X(S, "flags", flags) X(S, "src_start_addr", src_start_addr) \
    X(S, "src_step_elem", src_step_elem) X(S, "src_num_elem", src_num_elem) X(S, "src_elem_size", src_elem_size) \
    X(S, "dst_start_addr", dst_start_addr) X(S, "dst_step_elem", dst_step_elem) X(S, "dst_num_elem", dst_num_elem) \
    X(S, "dst_elem_size", dst_elem_size) X(S, "src_idx_start_addr", src_idx_start_addr) \
    X(S, "dst_idx_start_addr", dst_idx_start_addr) X(S, "in_dtype", in_dtype) X(S, "out_dtype", out_dtype) \
    X(S, "src_idx_bound_reg", src_idx_bound_reg) X(S, "dst_idx_bound_reg", dst_idx_bound_reg) \
    X(S, "compute_op", compute_op) X(S, "dma_configs", dma_configs) XA(S, "reserved", reserved, 2)
#define DMA_GATHER_XPOSE_FIELDS(X, XA, S) HDR_EV(X, XA, S) X(S, "semaphore", semaphore) X(S, "dma_configs", dma_configs) \
    X(S, "idx_num_active_channels", idx_num_active_channels) X(S, "src_idx_bound_reg", src_idx_bound_reg) \
    X(S, "src_start_addr", src_start_addr) XA(S, "src_step_elem", src_step_elem, 2) XA(S, "src_num_elem", src_num_elem, 2) \
    X(S, "src_idx_start_addr", src_idx_start_addr) X(S, "dst_start_addr", dst_start_addr) XA(S, "reserved", reserved, 3) \
    X(S, "dst_bound_reg", dst_bound_reg) X(S, "dst_step_elem_1", dst_step_elem_1) XA(S, "dst_num_elem", dst_num_elem, 2) \
    X(S, "elem_size", elem_size) X(S, "dtype", dtype) X(S, "flags", flags)
#define DMA_DIRECT2D_XPOSE_FIELDS(X, XA, S) HDR_EV(X, XA, S) XA(S, "unknown12", unknown12, 2) X(S, "in_dtype", in_dtype) \
    X(S, "out_dtype", out_dtype) X(S, "src_start_addr", src_start_addr) XA(S, "unknown24", unknown24, 12) X(S, "tile_src_row_step", tile_src_row_step) \
    X(S, "dst_start_addr", dst_start_addr) X(S, "dst_row_step", dst_row_step) XA(S, "unknown52", unknown52, 8) X(S, "tile_src_rows", tile_src_rows) X(S, "tile_src_cols", tile_src_cols) \
    X(S, "semaphore", semaphore) X(S, "dma_configs", dma_configs)

#define L_X(S, name, m) printf("%s %s %zu %zu\n", sname, name, offsetof(S, m), sizeof(((S *)0)->m));
#define L_XA(S, name, m, n) for (int i = 0; i < (n); i++) \
    printf("%s %s[%d] %zu %zu\n", sname, name, i, offsetof(S, m) + i * sizeof(((S *)0)->m[0]), sizeof(((S *)0)->m[0]));
#define PV(v) do { if ((__typeof__(v))-1 < 0) printf("%lld", (long long)(v)); \
                   else printf("%llu", (unsigned long long)(v)); } while (0)
#define D_X(S, name, m) printf("%s %s=", sname, name); PV(p->m); printf("\n");
#define D_XA(S, name, m, n) for (int i = 0; i < (n); i++) { printf("%s %s[%d]=", sname, name, i); PV(p->m[i]); printf("\n"); }
#define V(k) (0x9E3779B97F4A7C15ULL * (unsigned long long)(k) ^ ((unsigned long long)(k) << 29))
#define F_X(S, name, m) p->m = (__typeof__(p->m))V(++k);
#define F_XA(S, name, m, n) for (int i = 0; i < (n); i++) p->m[i] = (__typeof__(p->m[i]))V(++k);

#define DEF(NAME, S, FIELDS, OPC) \
    static void layout_##NAME(void) { const char *sname = #NAME; \
        printf("%s sizeof %zu\n", sname, sizeof(S)); FIELDS(L_X, L_XA, S) } \
    static void dump_##NAME(const S *p) { const char *sname = #NAME; FIELDS(D_X, D_XA, S) } \
    static void fill_##NAME(void) { S s; S *p = &s; unsigned long long k = OPC * 1000ULL; \
        memset(&s, 0, sizeof s); FIELDS(F_X, F_XA, S) p->header.opcode = OPC; \
        printf("%s ", #NAME); for (size_t i = 0; i < sizeof s; i++) printf("%02x", ((unsigned char *)&s)[i]); \
        printf("\n"); }

DEF(S4D4_TR, NEURON_ISA_TPB_S4D4_TR_STRUCT, S4D4_TR_FIELDS, 0x6b)
DEF(CTRL_IM, NEURON_ISA_TPB_CTRL_IM_STRUCT, CTRL_IM_FIELDS, 0x69)
DEF(D4_MR, NEURON_ISA_TPB_D4_MR_STRUCT, D4_MR_FIELDS, 0x49)
DEF(DMA_DIRECT2D, NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT, DMA_DIRECT2D_FIELDS, 0xb8)
DEF(DMA_INDIRECT1D, NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT, DMA_INDIRECT1D_FIELDS, 0xbb)
DEF(DMA_GATHER_XPOSE, NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT, DMA_GATHER_XPOSE_FIELDS, 0xf1)
DEF(DMA_DIRECT2D_XPOSE, NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT, DMA_DIRECT2D_XPOSE_FIELDS, 0xbd)

static int unhex(const char *h, unsigned char *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

#define PARSE(NAME, S) if (!strcmp(name, #NAME)) { S s; memcpy(&s, buf, sizeof s); dump_##NAME(&s); continue; }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "layout")) {
        layout_S4D4_TR(); layout_CTRL_IM(); layout_D4_MR(); layout_DMA_DIRECT2D(); layout_DMA_INDIRECT1D();
        layout_DMA_GATHER_XPOSE(); layout_DMA_DIRECT2D_XPOSE();
        printf("TENSOR4D sizeof %zu\n", sizeof(NEURON_ISA_TPB_TENSOR4D));
        return 0;
    }
    if (!strcmp(mode, "fill")) {
        fill_S4D4_TR(); fill_CTRL_IM(); fill_D4_MR(); fill_DMA_DIRECT2D(); fill_DMA_INDIRECT1D();
        fill_DMA_GATHER_XPOSE(); fill_DMA_DIRECT2D_XPOSE();
        return 0;
    }
    if (!strcmp(mode, "bits")) {
        for (int b = 0; b < 256; b++) {
            unsigned char c = (unsigned char)b;
            DMA_CONFIGS_BITS d; BOUND_CHECK_REG_BITS r; DMA_INDIRECT_FLAGS_BITS f; DTYPE_PAIR_BITS p;
            GATHER_TRANSPOSE_FLAGS_BITS g;
            memcpy(&d, &c, 1); memcpy(&r, &c, 1); memcpy(&f, &c, 1); memcpy(&p, &c, 1); memcpy(&g, &c, 1);
            printf("%d dma_configs %u %u\n", b, d.priority_class, d.reserved);
            printf("%d bound_check_reg %u %u %u\n", b, r.bc_reg, r.bc_disable_oob_error_notif, r.bc_enabled);
            printf("%d dma_indirect_flags %u %u %u %u %u\n", b, f.indirect_mode, f.idx_bound_is_err, f.non_unique_dst_idx,
                   f.gather_dim, f.scatter_dim);
            printf("%d dtype_pair %u %u\n", b, p.dtype_lo, p.dtype_hi);
            printf("%d gather_transpose_flags %u %u\n", b, g.gather_dim, g.reserved);
        }
        return 0;
    }
    if (!strcmp(mode, "parse")) {
        char name[64], hex[200];
        unsigned char buf[64];
        while (scanf("%63s %199s", name, hex) == 2) {
            if (strlen(hex) != 128 || unhex(hex, buf, 64)) { fprintf(stderr, "bad line\n"); return 2; }
            PARSE(S4D4_TR, NEURON_ISA_TPB_S4D4_TR_STRUCT)
            PARSE(CTRL_IM, NEURON_ISA_TPB_CTRL_IM_STRUCT)
            PARSE(D4_MR, NEURON_ISA_TPB_D4_MR_STRUCT)
            PARSE(DMA_DIRECT2D, NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT)
            PARSE(DMA_INDIRECT1D, NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT)
            PARSE(DMA_GATHER_XPOSE, NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT)
            PARSE(DMA_DIRECT2D_XPOSE, NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT)
            fprintf(stderr, "unknown struct %s\n", name);
            return 2;
        }
        return 0;
    }
    fprintf(stderr, "usage: oracle layout|fill|parse|bits\n");
    return 2;
}
