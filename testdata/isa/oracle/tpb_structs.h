/* C definitions of the NeuronCore TPB instruction structs modelled by tpbsim, written from the
 * struct listing of seed 000 §4 / §4.1 (S4D4_TR, TENSOR4D, HEADER, EVENTS) and FACTS §B.1-§B.4,
 * §C.2-§C.6 (DMA structs), §F.4 (CTRL_IM, D4_MR). All structs and enums are packed; enums are
 * one byte. The gcc oracle test (isa/oracle_test.go) compiles this against the Go layout table
 * and encoder. Names follow the ISA headers; unknown bytes are named unknownNN (offset NN). */
#include <stdint.h>

#define PACKED __attribute__((packed))

typedef uint8_t NEURON_ISA_TPB_OPCODE;
typedef uint8_t NEURON_ISA_TPB_DTYPE;
typedef uint8_t NEURON_ISA_TPB_ALU_OP;
typedef uint8_t NEURON_ISA_TPB_TENSOR_SUBDIM;
typedef uint8_t NEURON_ISA_TPB_WAIT_MODE;
typedef uint8_t NEURON_ISA_TPB_UPDATE_MODE;
typedef uint8_t NEURON_ISA_TPB_DGE_COMPUTE_OP;
typedef uint8_t NEURON_ISA_TPB_DMA_CONFIGS;        /* bitfields: see the *_BITS structs below */
typedef uint8_t NEURON_ISA_TPB_BOUND_CHECK_REG;
typedef uint8_t NEURON_ISA_TPB_DMA_INDIRECT_FLAGS;
typedef uint8_t NEURON_ISA_TPB_DTYPE_PAIR;
typedef uint8_t NEURON_ISA_TPB_GATHER_TRANSPOSE_FLAGS;
typedef uint32_t NEURON_ISA_TPB_ADDR4;             /* union addr_immediate | ADDR_REG4, 4 bytes */
typedef uint64_t NEURON_ISA_TPB_ADDR8;             /* union keyed by the high-byte marker, 8 bytes */

typedef struct PACKED NEURON_ISA_TPB_HEADER {
    NEURON_ISA_TPB_OPCODE opcode;       /* 0 */
    uint8_t inst_word_len;              /* 1 */
    uint8_t debug_cmd;                  /* 2 */
    uint8_t debug_hint;                 /* 3 */
} NEURON_ISA_TPB_HEADER;

typedef struct PACKED NEURON_ISA_TPB_EVENTS {
    NEURON_ISA_TPB_WAIT_MODE wait_mode;     /* 4 */
    uint8_t wait_idx;                       /* 5 */
    NEURON_ISA_TPB_UPDATE_MODE update_mode; /* 6 */
    uint8_t update_idx;                     /* 7 */
    uint32_t semaphore_value;               /* 8..11 */
} NEURON_ISA_TPB_EVENTS;

typedef struct PACKED NEURON_ISA_TPB_TENSOR4D {
    NEURON_ISA_TPB_ADDR4 start_addr;    /*  4 */
    int16_t step_elem[4];               /*  8 */
    uint16_t num_elem[4];               /*  8 */
} NEURON_ISA_TPB_TENSOR4D;              /* 20 */

/* seed 000 §4 */
typedef struct PACKED NEURON_ISA_TPB_S4D4_TR_STRUCT {
    NEURON_ISA_TPB_HEADER header;               /*  4  ( 0 -  3) */
    NEURON_ISA_TPB_EVENTS events;               /*  8  ( 4 - 11) */
    NEURON_ISA_TPB_TENSOR4D src_mem_pattern;    /* 20  (12 - 31) */
    NEURON_ISA_TPB_DTYPE in_dtype;              /*  1  (32) */
    NEURON_ISA_TPB_DTYPE out_dtype;             /*  1  (33) */
    uint8_t num_active_channels;                /*  1  (34) */
    uint8_t negated;                            /*  1  (35) */
    NEURON_ISA_TPB_ALU_OP op;                   /*  1  (36) */
    NEURON_ISA_TPB_TENSOR_SUBDIM op_dim;        /*  1  (37) */
    uint8_t mask_enable;                        /*  1  (38) */
    uint8_t reserved1[5];                       /*  5  (39 - 43) */
    NEURON_ISA_TPB_TENSOR4D dst_mem_pattern;    /* 20  (44 - 63) */
} NEURON_ISA_TPB_S4D4_TR_STRUCT;

/* FACTS §F.4: LOAD_MASK_SELECT 0x69 */
typedef struct PACKED NEURON_ISA_TPB_CTRL_IM_STRUCT {
    NEURON_ISA_TPB_HEADER header;
    NEURON_ISA_TPB_EVENTS events;
    uint16_t param_ram_offset;      /* 12 */
    uint8_t imm_ptr_select;         /* 14 */
    uint8_t reserved0[17];          /* 15 */
    uint8_t immediate[32];          /* 32 */
} NEURON_ISA_TPB_CTRL_IM_STRUCT;

/* FACTS §F.4: MEMSET 0x49 (bytes the sources do not describe are unknownNN) */
typedef struct PACKED NEURON_ISA_TPB_D4_MR_STRUCT {
    NEURON_ISA_TPB_HEADER header;
    NEURON_ISA_TPB_EVENTS events;
    uint8_t unknown12[16];                  /* 12 */
    uint32_t dst_element_count;             /* 28 */
    NEURON_ISA_TPB_DTYPE dtype;             /* 32 */
    uint8_t unknown33;                      /* 33 */
    uint8_t num_active_channels;            /* 34 */
    uint8_t unknown35;                      /* 35 */
    uint8_t serialization_mode;             /* 36 */
    uint8_t unknown37[3];                   /* 37 */
    uint32_t set_value;                     /* 40 */
    NEURON_ISA_TPB_TENSOR4D dst_mem_pattern;/* 44 */
} NEURON_ISA_TPB_D4_MR_STRUCT;

/* FACTS §C.2: DMAMEMCPY 0xb8 */
typedef struct PACKED NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT {
    NEURON_ISA_TPB_HEADER header;
    NEURON_ISA_TPB_EVENTS events;
    NEURON_ISA_TPB_DMA_CONFIGS dma_configs;     /* 12 */
    uint8_t semaphore;                          /* 13 */
    uint8_t sem_increment;                      /* 14 */
    NEURON_ISA_TPB_DGE_COMPUTE_OP compute_op;   /* 15 */
    NEURON_ISA_TPB_ADDR8 src_start_addr;        /* 16 */
    int32_t src_step_elem[2];                   /* 24 */
    uint16_t src_num_elem[2];                   /* 32 */
    uint16_t src_elem_size;                     /* 36 */
    NEURON_ISA_TPB_BOUND_CHECK_REG src_bound_reg; /* 38 */
    NEURON_ISA_TPB_BOUND_CHECK_REG dst_bound_reg; /* 39 */
    NEURON_ISA_TPB_ADDR8 dst_start_addr;        /* 40 */
    int32_t dst_step_elem[2];                   /* 48 */
    uint16_t dst_num_elem[2];                   /* 56 */
    uint16_t dst_elem_size;                     /* 60 */
    NEURON_ISA_TPB_DTYPE in_dtype;              /* 62 */
    NEURON_ISA_TPB_DTYPE out_dtype;             /* 63 */
} NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT;

/* FACTS §C.3: DMA_INDIRECT 0xbb */
typedef struct PACKED NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT {
    NEURON_ISA_TPB_HEADER header;
    NEURON_ISA_TPB_EVENTS events;
    uint8_t semaphore;                          /* 12 */
    uint8_t sem_increment;                      /* 13 */
    uint8_t idx_num_active_channels;            /* 14 */
    NEURON_ISA_TPB_DMA_INDIRECT_FLAGS flags;    /* 15 */
    NEURON_ISA_TPB_ADDR8 src_start_addr;        /* 16 */
    int32_t src_step_elem;                      /* 24 */
    uint16_t src_num_elem;                      /* 28 */
    uint16_t src_elem_size;                     /* 30 */
    NEURON_ISA_TPB_ADDR8 dst_start_addr;        /* 32 */
    int32_t dst_step_elem;                      /* 40 */
    uint16_t dst_num_elem;                      /* 44 */
    uint16_t dst_elem_size;                     /* 46 */
    NEURON_ISA_TPB_ADDR4 src_idx_start_addr;    /* 48 */
    NEURON_ISA_TPB_ADDR4 dst_idx_start_addr;    /* 52 */
    NEURON_ISA_TPB_DTYPE in_dtype;              /* 56 */
    NEURON_ISA_TPB_DTYPE out_dtype;             /* 57 */
    NEURON_ISA_TPB_BOUND_CHECK_REG src_idx_bound_reg; /* 58 */
    NEURON_ISA_TPB_BOUND_CHECK_REG dst_idx_bound_reg; /* 59 */
    NEURON_ISA_TPB_DGE_COMPUTE_OP compute_op;   /* 60 */
    NEURON_ISA_TPB_DMA_CONFIGS dma_configs;     /* 61 */
    uint8_t reserved[2];                        /* 62 */
} NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT;

/* FACTS §C.4: DMA_GATHER_TRANSPOSE 0xf1 */
typedef struct PACKED NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT {
    NEURON_ISA_TPB_HEADER header;
    NEURON_ISA_TPB_EVENTS events;
    uint8_t semaphore;                          /* 12 */
    NEURON_ISA_TPB_DMA_CONFIGS dma_configs;     /* 13 */
    uint8_t idx_num_active_channels;            /* 14 */
    NEURON_ISA_TPB_BOUND_CHECK_REG src_idx_bound_reg; /* 15 */
    NEURON_ISA_TPB_ADDR8 src_start_addr;        /* 16 */
    int32_t src_step_elem[2];                   /* 24 */
    uint16_t src_num_elem[2];                   /* 32 */
    NEURON_ISA_TPB_ADDR4 src_idx_start_addr;    /* 36 */
    NEURON_ISA_TPB_ADDR8 dst_start_addr;        /* 40 */
    uint8_t reserved[3];                        /* 48 */
    NEURON_ISA_TPB_BOUND_CHECK_REG dst_bound_reg; /* 51 */
    int32_t dst_step_elem_1;                    /* 52 */
    uint16_t dst_num_elem[2];                   /* 56 */
    uint16_t elem_size;                         /* 60 */
    NEURON_ISA_TPB_DTYPE_PAIR dtype;            /* 62 */
    NEURON_ISA_TPB_GATHER_TRANSPOSE_FLAGS flags;/* 63 */
} NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT;

/* FACTS §C.5: DMA_TRANSPOSE 0xbd, partial: unknownNN bytes are not described by the sources; the three
   fields marked INFERRED are tpbsim's reading (Provenance dge.direct2d_xpose_layout), not the header's */
typedef struct PACKED NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT {
    NEURON_ISA_TPB_HEADER header;
    NEURON_ISA_TPB_EVENTS events;
    uint8_t unknown12[2];                       /* 12 */
    NEURON_ISA_TPB_DTYPE in_dtype;              /* 14 */
    NEURON_ISA_TPB_DTYPE out_dtype;             /* 15 */
    NEURON_ISA_TPB_ADDR8 src_start_addr;        /* 16: tpbsim's INFERRED reading */
    uint8_t unknown24[12];                      /* 24 */
    int32_t tile_src_row_step;                  /* 36 */
    NEURON_ISA_TPB_ADDR8 dst_start_addr;        /* 40: tpbsim's INFERRED reading */
    int32_t dst_row_step;                       /* 48: tpbsim's INFERRED reading */
    uint8_t unknown52[8];                       /* 52 */
    uint8_t tile_src_rows;                      /* 60 */
    uint8_t tile_src_cols;                      /* 61 */
    uint8_t semaphore;                          /* 62 */
    NEURON_ISA_TPB_DMA_CONFIGS dma_configs;     /* 63 */
} NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT;

_Static_assert(sizeof(NEURON_ISA_TPB_TENSOR4D) == 20, "TENSOR4D");
_Static_assert(sizeof(NEURON_ISA_TPB_S4D4_TR_STRUCT) == 64, "S4D4_TR");
_Static_assert(sizeof(NEURON_ISA_TPB_CTRL_IM_STRUCT) == 64, "CTRL_IM");
_Static_assert(sizeof(NEURON_ISA_TPB_D4_MR_STRUCT) == 64, "D4_MR");
_Static_assert(sizeof(NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT) == 64, "DMA_DIRECT2D");
_Static_assert(sizeof(NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT) == 64, "DMA_INDIRECT1D");
_Static_assert(sizeof(NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT) == 64, "DMA_GATHER_XPOSE");
_Static_assert(sizeof(NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT) == 64, "DMA_DIRECT2D_XPOSE");

/* The one-byte bitfield types, LSB first as declared (FACTS §A.1, §C.3, §C.4, §C.6). */
typedef struct PACKED { uint8_t priority_class : 3; uint8_t reserved : 5; } DMA_CONFIGS_BITS;
typedef struct PACKED { uint8_t bc_reg : 6; uint8_t bc_disable_oob_error_notif : 1; uint8_t bc_enabled : 1; } BOUND_CHECK_REG_BITS;
typedef struct PACKED { uint8_t indirect_mode : 2; uint8_t idx_bound_is_err : 1; uint8_t non_unique_dst_idx : 1;
                        uint8_t gather_dim : 2; uint8_t scatter_dim : 2; } DMA_INDIRECT_FLAGS_BITS;
typedef struct PACKED { uint8_t dtype_lo : 4; uint8_t dtype_hi : 4; } DTYPE_PAIR_BITS;
typedef struct PACKED { uint8_t gather_dim : 2; uint8_t reserved : 6; } GATHER_TRANSPOSE_FLAGS_BITS;
