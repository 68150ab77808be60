std::tuple<TFTensor, TFTensor> kernels(TFContext tf, TFTensor A)
{
    tf.check_tensor(A, "A", 2, TFType::Float);
    const int A_shape0_1 = (int)A.shape[0];
    const int A_shape1_2 = (int)A.shape[1];
    tf.check((long long)(A_shape0_1) >= 0, "tensor 'Q': shape[0] is {0}, a negative size", {(long long)(A_shape0_1)});
    tf.check((long long)(A_shape1_2) >= 0, "tensor 'Q': shape[1] is {0}, a negative size", {(long long)(A_shape1_2)});
    tf.check((double)(long long)(A_shape0_1) * (double)(long long)(A_shape1_2) <= 2147483647.0, "tensor 'Q': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape0_1), (long long)(A_shape1_2)});
    TFTensor Q_3 = tf.allocate("Q", {(uint)A_shape0_1, (uint)A_shape1_2}, TFType::Float);
    tf.dispatch(0, {Q_3}, {}, {asuint(A_shape0_1), asuint(A_shape1_2)}, {(uint)A_shape0_1, (uint)A_shape1_2}, {256});
    tf.check((long long)(A_shape1_2) >= 0, "tensor 'R': shape[0] is {0}, a negative size", {(long long)(A_shape1_2)});
    tf.check((long long)(A_shape1_2) >= 0, "tensor 'R': shape[1] is {0}, a negative size", {(long long)(A_shape1_2)});
    tf.check((double)(long long)(A_shape1_2) * (double)(long long)(A_shape1_2) <= 2147483647.0, "tensor 'R': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape1_2), (long long)(A_shape1_2)});
    TFTensor R_4 = tf.allocate("R", {(uint)A_shape1_2, (uint)A_shape1_2}, TFType::Float);
    tf.dispatch(1, {R_4}, {}, {asuint(A_shape1_2)}, {(uint)A_shape1_2, (uint)A_shape1_2}, {256});
    const int v_5 = tf_wrap_sub_i32(A_shape1_2, 1);
    tf.check((long long)(A_shape0_1) >= 0, "tensor 'A_copy': shape[0] is {0}, a negative size", {(long long)(A_shape0_1)});
    tf.check((long long)(A_shape1_2) >= 0, "tensor 'A_copy': shape[1] is {0}, a negative size", {(long long)(A_shape1_2)});
    tf.check((double)(long long)(A_shape0_1) * (double)(long long)(A_shape1_2) <= 2147483647.0, "tensor 'A_copy': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape0_1), (long long)(A_shape1_2)});
    TFTensor A_copy_6 = tf.allocate("A_copy", {(uint)A_shape0_1, (uint)A_shape1_2}, TFType::Float);
    tf.dispatch(2, {A_copy_6}, {A}, {asuint(A_shape0_1), asuint(A_shape1_2)}, {(uint)A_shape0_1, (uint)A_shape1_2}, {256});
    for (int v_7 = 0; v_7 < v_5; v_7 += 1) {
        tf.dispatch(3, {R_4}, {A_copy_6}, {asuint(A_shape0_1), asuint(A_shape1_2), asuint(v_7)}, {(uint)1}, {256});
        const int v_8 = tf_wrap_add_i32(v_7, 1);
        const int v_9 = tf_max_i32(A_shape0_1, 0);
        const int v_10 = tf_wrap_sub_i32(A_shape1_2, v_8);
        const int v_11 = tf_max_i32(v_10, 0);
        tf.dispatch(4, {Q_3}, {A_copy_6, R_4}, {asuint(A_shape0_1), asuint(A_shape1_2), asuint(v_7)}, {(uint)A_shape0_1}, {256});
        tf.dispatch(5, {R_4}, {Q_3, A_copy_6}, {asuint(v_11), asuint(v_8), asuint(v_9), asuint(A_shape0_1), asuint(A_shape1_2), asuint(v_7)}, {(uint)v_11}, {256});
        tf.dispatch(6, {A_copy_6}, {Q_3, R_4}, {asuint(v_9), asuint(v_11), asuint(v_8), asuint(A_shape0_1), asuint(A_shape1_2), asuint(v_7)}, {(uint)v_9, (uint)v_11}, {256});
    }
    tf.dispatch(7, {R_4}, {A_copy_6}, {asuint(A_shape0_1), asuint(A_shape1_2), asuint(v_5)}, {(uint)1}, {256});
    tf.dispatch(8, {Q_3}, {A_copy_6, R_4}, {asuint(A_shape0_1), asuint(A_shape1_2), asuint(v_5)}, {(uint)A_shape0_1}, {256});
    tf.deallocate(A_copy_6);
    return {Q_3, R_4};
}

// kernel kernels_k0: one thread per element of [A_shape0_1, A_shape1_2]
// binding 0: Q_0 (float32, read-write)
// tf_u[0]: A_shape0_1 (int32)
// tf_u[1]: A_shape1_2 (int32)
// tf_u[0].z: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> Q_0 : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape0_1 = asint(tf_u[0].x);
    const int A_shape1_2 = asint(tf_u[0].y);
    const uint tf_g = (tf_group.y * tf_u[0].z + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(A_shape0_1) * uint(A_shape1_2)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(A_shape1_2));
    tf_rest = tf_rest / uint(A_shape1_2);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    Q_0[tf_t] = 0.0f;
}

// kernel kernels_k1: one thread per element of [A_shape1_1, A_shape1_1]
// binding 0: R_0 (float32, read-write)
// tf_u[0]: A_shape1_1 (int32)
// tf_u[0].y: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> R_0 : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape1_1 = asint(tf_u[0].x);
    const uint tf_g = (tf_group.y * tf_u[0].y + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(A_shape1_1) * uint(A_shape1_1)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(A_shape1_1));
    tf_rest = tf_rest / uint(A_shape1_1);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    R_0[tf_t] = 0.0f;
}

// kernel kernels_k2: one thread per element of [A_shape0_2, A_shape1_3]
// binding 0: A_copy_0 (float32, read-write)
// binding 1: A_1 (float32, read-only)
// tf_u[0]: A_shape0_2 (int32)
// tf_u[1]: A_shape1_3 (int32)
// tf_u[0].z: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> A_copy_0 : register(u0);
StructuredBuffer<float> A_1 : register(t0);

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape0_2 = asint(tf_u[0].x);
    const int A_shape1_3 = asint(tf_u[0].y);
    const uint tf_g = (tf_group.y * tf_u[0].z + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(A_shape0_2) * uint(A_shape1_3)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(A_shape1_3));
    tf_rest = tf_rest / uint(A_shape1_3);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_4 = A_1[tf_t];
    const float A_copy_5 = v_4;
    A_copy_0[tf_t] = A_copy_5;
}

// kernel kernels_k3: one thread per element of [1]
// binding 0: R_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// tf_u[0]: A_shape0_2 (int32)
// tf_u[1]: A_shape1_3 (int32)
// tf_u[2]: v_4 (int32)
// tf_u[0].w: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> R_0 : register(u0);
StructuredBuffer<float> A_copy_1 : register(t0);

#define TF_NAN asfloat(0x7FC00000u)

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

float tf_sqrt_f32(float a) { return a < 0.0 ? TF_NAN : sqrt(a); }

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape0_2 = asint(tf_u[0].x);
    const int A_shape1_3 = asint(tf_u[0].y);
    const int v_4 = asint(tf_u[0].z);
    const uint tf_g = (tf_group.y * tf_u[0].w + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(1)) return;
    uint tf_rest = tf_g;
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_5 = 0.0f;
    for (int v_6 = 0; v_6 < A_shape0_2; v_6 += 1) {
        const float v_7 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        const float v_8 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        const float v_9 = (v_7 * v_8);
        const float v_10 = (v_5 + v_9);
        v_5 = v_10;
    }
    const float v_11 = tf_sqrt_f32(v_5);
    R_0[(tf_clamp_index(v_4, A_shape1_3)) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)] = v_11;
}

// kernel kernels_k4: one thread per element of [A_shape0_3]
// binding 0: Q_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// binding 2: R_2 (float32, read-only)
// tf_u[0]: A_shape0_3 (int32)
// tf_u[1]: A_shape1_4 (int32)
// tf_u[2]: v_5 (int32)
// tf_u[0].w: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> Q_0 : register(u0);
StructuredBuffer<float> A_copy_1 : register(t0);
StructuredBuffer<float> R_2 : register(t1);

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

uint tf_uabs(int a) { return a < 0 ? 0u - uint(a) : uint(a); }

float tf_div_f32(float a, float b) { return a / b; }
int tf_div_i32(int a, int b) {
    if (b == 0) return 0;
    int q = int(tf_uabs(a) / tf_uabs(b));
    return (a < 0) != (b < 0) ? -q : q;
}
uint tf_div_u32(uint a, uint b) { return b == 0u ? 0u : a / b; }

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape0_3 = asint(tf_u[0].x);
    const int A_shape1_4 = asint(tf_u[0].y);
    const int v_5 = asint(tf_u[0].z);
    const uint tf_g = (tf_group.y * tf_u[0].w + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(A_shape0_3)) return;
    uint tf_rest = tf_g;
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_6 = A_copy_1[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    const float v_7 = R_2[(tf_clamp_index(v_5, A_shape1_4)) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    const float v_8 = tf_div_f32(v_6, v_7);
    Q_0[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)] = v_8;
}

// kernel kernels_k5: one thread per element of [v_3]
// binding 0: R_0 (float32, read-write)
// binding 1: Q_1 (float32, read-only)
// binding 2: A_copy_2 (float32, read-only)
// tf_u[0]: v_3 (int32)
// tf_u[1]: v_4 (int32)
// tf_u[2]: v_5 (int32)
// tf_u[3]: A_shape0_6 (int32)
// tf_u[4]: A_shape1_7 (int32)
// tf_u[5]: v_8 (int32)
// tf_u[1].z: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[2]; };
RWStructuredBuffer<float> R_0 : register(u0);
StructuredBuffer<float> Q_1 : register(t0);
StructuredBuffer<float> A_copy_2 : register(t1);

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int v_3 = asint(tf_u[0].x);
    const int v_4 = asint(tf_u[0].y);
    const int v_5 = asint(tf_u[0].z);
    const int A_shape0_6 = asint(tf_u[0].w);
    const int A_shape1_7 = asint(tf_u[1].x);
    const int v_8 = asint(tf_u[1].y);
    const uint tf_g = (tf_group.y * tf_u[1].z + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(v_3)) return;
    uint tf_rest = tf_g;
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const int v_9 = (i0 + v_4);
    float v_10 = 0.0f;
    for (int v_11 = 0; v_11 < v_5; v_11 += 1) {
        const float v_12 = Q_1[(tf_clamp_index(v_11, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_8, A_shape1_7)];
        const float v_13 = A_copy_2[(tf_clamp_index(v_11, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)];
        const float v_14 = (v_12 * v_13);
        const float v_15 = (v_10 + v_14);
        v_10 = v_15;
    }
    R_0[(tf_clamp_index(v_8, A_shape1_7)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)] = v_10;
}

// kernel kernels_k6: one thread per element of [v_3, v_4]
// binding 0: A_copy_0 (float32, read-write)
// binding 1: Q_1 (float32, read-only)
// binding 2: R_2 (float32, read-only)
// tf_u[0]: v_3 (int32)
// tf_u[1]: v_4 (int32)
// tf_u[2]: v_5 (int32)
// tf_u[3]: A_shape0_6 (int32)
// tf_u[4]: A_shape1_7 (int32)
// tf_u[5]: v_8 (int32)
// tf_u[1].z: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[2]; };
RWStructuredBuffer<float> A_copy_0 : register(u0);
StructuredBuffer<float> Q_1 : register(t0);
StructuredBuffer<float> R_2 : register(t1);

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int v_3 = asint(tf_u[0].x);
    const int v_4 = asint(tf_u[0].y);
    const int v_5 = asint(tf_u[0].z);
    const int A_shape0_6 = asint(tf_u[0].w);
    const int A_shape1_7 = asint(tf_u[1].x);
    const int v_8 = asint(tf_u[1].y);
    const uint tf_g = (tf_group.y * tf_u[1].z + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(v_3) * uint(v_4)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(v_4));
    tf_rest = tf_rest / uint(v_4);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const int v_9 = (i1 + v_5);
    const float v_10 = A_copy_0[(tf_clamp_index(i0, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)];
    const float v_11 = Q_1[(tf_clamp_index(i0, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_8, A_shape1_7)];
    const float v_12 = R_2[(tf_clamp_index(v_8, A_shape1_7)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)];
    const float v_13 = (v_11 * v_12);
    const float v_14 = (v_10 - v_13);
    A_copy_0[(tf_clamp_index(i0, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)] = v_14;
}

// kernel kernels_k7: one thread per element of [1]
// binding 0: R_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// tf_u[0]: A_shape0_2 (int32)
// tf_u[1]: A_shape1_3 (int32)
// tf_u[2]: v_4 (int32)
// tf_u[0].w: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> R_0 : register(u0);
StructuredBuffer<float> A_copy_1 : register(t0);

#define TF_NAN asfloat(0x7FC00000u)

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

float tf_sqrt_f32(float a) { return a < 0.0 ? TF_NAN : sqrt(a); }

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape0_2 = asint(tf_u[0].x);
    const int A_shape1_3 = asint(tf_u[0].y);
    const int v_4 = asint(tf_u[0].z);
    const uint tf_g = (tf_group.y * tf_u[0].w + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(1)) return;
    uint tf_rest = tf_g;
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_5 = 0.0f;
    for (int v_6 = 0; v_6 < A_shape0_2; v_6 += 1) {
        const float v_7 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        const float v_8 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        const float v_9 = (v_7 * v_8);
        const float v_10 = (v_5 + v_9);
        v_5 = v_10;
    }
    const float v_11 = tf_sqrt_f32(v_5);
    R_0[(tf_clamp_index(v_4, A_shape1_3)) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)] = v_11;
}

// kernel kernels_k8: one thread per element of [A_shape0_3]
// binding 0: Q_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// binding 2: R_2 (float32, read-only)
// tf_u[0]: A_shape0_3 (int32)
// tf_u[1]: A_shape1_4 (int32)
// tf_u[2]: v_5 (int32)
// tf_u[0].w: groups along x of the dispatch
cbuffer tf_uniforms : register(b0) { uint4 tf_u[1]; };
RWStructuredBuffer<float> Q_0 : register(u0);
StructuredBuffer<float> A_copy_1 : register(t0);
StructuredBuffer<float> R_2 : register(t1);

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

uint tf_uabs(int a) { return a < 0 ? 0u - uint(a) : uint(a); }

float tf_div_f32(float a, float b) { return a / b; }
int tf_div_i32(int a, int b) {
    if (b == 0) return 0;
    int q = int(tf_uabs(a) / tf_uabs(b));
    return (a < 0) != (b < 0) ? -q : q;
}
uint tf_div_u32(uint a, uint b) { return b == 0u ? 0u : a / b; }

[numthreads(256, 1, 1)]
void main(uint3 tf_group : SV_GroupID, uint3 tf_local : SV_GroupThreadID) {
    const int A_shape0_3 = asint(tf_u[0].x);
    const int A_shape1_4 = asint(tf_u[0].y);
    const int v_5 = asint(tf_u[0].z);
    const uint tf_g = (tf_group.y * tf_u[0].w + tf_group.x) * 256u + tf_local.x;
    if (tf_g >= uint(A_shape0_3)) return;
    uint tf_rest = tf_g;
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_6 = A_copy_1[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    const float v_7 = R_2[(tf_clamp_index(v_5, A_shape1_4)) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    const float v_8 = tf_div_f32(v_6, v_7);
    Q_0[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)] = v_8;
}

