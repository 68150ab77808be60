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
@group(0) @binding(0) var<storage, read_write> Q_0: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(1) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_1: i32 = bitcast<i32>(tf_u.w[0].x);
    let A_shape1_2: i32 = bitcast<i32>(tf_u.w[0].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(A_shape0_1) * u32(A_shape1_2)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(A_shape1_2));
    tf_rest = tf_rest / u32(A_shape1_2);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    Q_0[tf_t] = 0.0f;
}

// kernel kernels_k1: one thread per element of [A_shape1_1, A_shape1_1]
// binding 0: R_0 (float32, read-write)
// tf_u[0]: A_shape1_1 (int32)
@group(0) @binding(0) var<storage, read_write> R_0: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(1) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape1_1: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(A_shape1_1) * u32(A_shape1_1)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(A_shape1_1));
    tf_rest = tf_rest / u32(A_shape1_1);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    R_0[tf_t] = 0.0f;
}

// kernel kernels_k2: one thread per element of [A_shape0_2, A_shape1_3]
// binding 0: A_copy_0 (float32, read-write)
// binding 1: A_1 (float32, read-only)
// tf_u[0]: A_shape0_2 (int32)
// tf_u[1]: A_shape1_3 (int32)
@group(0) @binding(0) var<storage, read_write> A_copy_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> A_1: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(2) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_2: i32 = bitcast<i32>(tf_u.w[0].x);
    let A_shape1_3: i32 = bitcast<i32>(tf_u.w[0].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(A_shape0_2) * u32(A_shape1_3)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(A_shape1_3));
    tf_rest = tf_rest / u32(A_shape1_3);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_4: f32 = A_1[tf_t];
    let A_copy_5: f32 = v_4;
    A_copy_0[tf_t] = A_copy_5;
}

// kernel kernels_k3: one thread per element of [1]
// binding 0: R_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// tf_u[0]: A_shape0_2 (int32)
// tf_u[1]: A_shape1_3 (int32)
// tf_u[2]: v_4 (int32)
@group(0) @binding(0) var<storage, read_write> R_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> A_copy_1: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(2) var<uniform> tf_u: TfUniforms;

fn tf_nan() -> f32 { return bitcast<f32>(0x7FC00000u); }

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

fn tf_sqrt_f32(a: f32) -> f32 { return select(sqrt(a), tf_nan(), a < 0.0); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_2: i32 = bitcast<i32>(tf_u.w[0].x);
    let A_shape1_3: i32 = bitcast<i32>(tf_u.w[0].y);
    let v_4: i32 = bitcast<i32>(tf_u.w[0].z);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(1)) { return; }
    var tf_rest: u32 = tf_g;
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_5: f32 = 0.0f;
    for (var v_6: i32 = 0; (v_6 < A_shape0_2); v_6 += 1) {
        let v_7: f32 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        let v_8: f32 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        let v_9: f32 = (v_7 * v_8);
        let v_10: f32 = (v_5 + v_9);
        v_5 = v_10;
    }
    let v_11: f32 = tf_sqrt_f32(v_5);
    R_0[(tf_clamp_index(v_4, A_shape1_3)) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)] = v_11;
}

// kernel kernels_k4: one thread per element of [A_shape0_3]
// binding 0: Q_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// binding 2: R_2 (float32, read-only)
// tf_u[0]: A_shape0_3 (int32)
// tf_u[1]: A_shape1_4 (int32)
// tf_u[2]: v_5 (int32)
@group(0) @binding(0) var<storage, read_write> Q_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> A_copy_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> R_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

fn tf_uabs(a: i32) -> u32 { return select(u32(a), 0u - u32(a), a < 0); }

fn tf_div_f32(a: f32, b: f32) -> f32 { return a / b; }
fn tf_div_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let q = i32(tf_uabs(a) / tf_uabs(b));
    return select(q, -q, (a < 0) != (b < 0));
}
fn tf_div_u32(a: u32, b: u32) -> u32 { return select(a / max(b, 1u), 0u, b == 0u); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let A_shape1_4: i32 = bitcast<i32>(tf_u.w[0].y);
    let v_5: i32 = bitcast<i32>(tf_u.w[0].z);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(A_shape0_3)) { return; }
    var tf_rest: u32 = tf_g;
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_6: f32 = A_copy_1[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    let v_7: f32 = R_2[(tf_clamp_index(v_5, A_shape1_4)) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    let v_8: f32 = tf_div_f32(v_6, v_7);
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
@group(0) @binding(0) var<storage, read_write> R_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> Q_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> A_copy_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 2> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let v_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let v_4: i32 = bitcast<i32>(tf_u.w[0].y);
    let v_5: i32 = bitcast<i32>(tf_u.w[0].z);
    let A_shape0_6: i32 = bitcast<i32>(tf_u.w[0].w);
    let A_shape1_7: i32 = bitcast<i32>(tf_u.w[1].x);
    let v_8: i32 = bitcast<i32>(tf_u.w[1].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(v_3)) { return; }
    var tf_rest: u32 = tf_g;
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_9: i32 = (i0 + v_4);
    var v_10: f32 = 0.0f;
    for (var v_11: i32 = 0; (v_11 < v_5); v_11 += 1) {
        let v_12: f32 = Q_1[(tf_clamp_index(v_11, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_8, A_shape1_7)];
        let v_13: f32 = A_copy_2[(tf_clamp_index(v_11, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)];
        let v_14: f32 = (v_12 * v_13);
        let v_15: f32 = (v_10 + v_14);
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
@group(0) @binding(0) var<storage, read_write> A_copy_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> Q_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> R_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 2> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let v_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let v_4: i32 = bitcast<i32>(tf_u.w[0].y);
    let v_5: i32 = bitcast<i32>(tf_u.w[0].z);
    let A_shape0_6: i32 = bitcast<i32>(tf_u.w[0].w);
    let A_shape1_7: i32 = bitcast<i32>(tf_u.w[1].x);
    let v_8: i32 = bitcast<i32>(tf_u.w[1].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(v_3) * u32(v_4)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(v_4));
    tf_rest = tf_rest / u32(v_4);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_9: i32 = (i1 + v_5);
    let v_10: f32 = A_copy_0[(tf_clamp_index(i0, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)];
    let v_11: f32 = Q_1[(tf_clamp_index(i0, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_8, A_shape1_7)];
    let v_12: f32 = R_2[(tf_clamp_index(v_8, A_shape1_7)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)];
    let v_13: f32 = (v_11 * v_12);
    let v_14: f32 = (v_10 - v_13);
    A_copy_0[(tf_clamp_index(i0, A_shape0_6)) * A_shape1_7 + tf_clamp_index(v_9, A_shape1_7)] = v_14;
}

// kernel kernels_k7: one thread per element of [1]
// binding 0: R_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// tf_u[0]: A_shape0_2 (int32)
// tf_u[1]: A_shape1_3 (int32)
// tf_u[2]: v_4 (int32)
@group(0) @binding(0) var<storage, read_write> R_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> A_copy_1: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(2) var<uniform> tf_u: TfUniforms;

fn tf_nan() -> f32 { return bitcast<f32>(0x7FC00000u); }

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

fn tf_sqrt_f32(a: f32) -> f32 { return select(sqrt(a), tf_nan(), a < 0.0); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_2: i32 = bitcast<i32>(tf_u.w[0].x);
    let A_shape1_3: i32 = bitcast<i32>(tf_u.w[0].y);
    let v_4: i32 = bitcast<i32>(tf_u.w[0].z);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(1)) { return; }
    var tf_rest: u32 = tf_g;
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_5: f32 = 0.0f;
    for (var v_6: i32 = 0; (v_6 < A_shape0_2); v_6 += 1) {
        let v_7: f32 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        let v_8: f32 = A_copy_1[(v_6) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)];
        let v_9: f32 = (v_7 * v_8);
        let v_10: f32 = (v_5 + v_9);
        v_5 = v_10;
    }
    let v_11: f32 = tf_sqrt_f32(v_5);
    R_0[(tf_clamp_index(v_4, A_shape1_3)) * A_shape1_3 + tf_clamp_index(v_4, A_shape1_3)] = v_11;
}

// kernel kernels_k8: one thread per element of [A_shape0_3]
// binding 0: Q_0 (float32, read-write)
// binding 1: A_copy_1 (float32, read-only)
// binding 2: R_2 (float32, read-only)
// tf_u[0]: A_shape0_3 (int32)
// tf_u[1]: A_shape1_4 (int32)
// tf_u[2]: v_5 (int32)
@group(0) @binding(0) var<storage, read_write> Q_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> A_copy_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> R_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

fn tf_uabs(a: i32) -> u32 { return select(u32(a), 0u - u32(a), a < 0); }

fn tf_div_f32(a: f32, b: f32) -> f32 { return a / b; }
fn tf_div_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let q = i32(tf_uabs(a) / tf_uabs(b));
    return select(q, -q, (a < 0) != (b < 0));
}
fn tf_div_u32(a: u32, b: u32) -> u32 { return select(a / max(b, 1u), 0u, b == 0u); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let A_shape1_4: i32 = bitcast<i32>(tf_u.w[0].y);
    let v_5: i32 = bitcast<i32>(tf_u.w[0].z);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(A_shape0_3)) { return; }
    var tf_rest: u32 = tf_g;
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_6: f32 = A_copy_1[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    let v_7: f32 = R_2[(tf_clamp_index(v_5, A_shape1_4)) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)];
    let v_8: f32 = tf_div_f32(v_6, v_7);
    Q_0[(i0) * A_shape1_4 + tf_clamp_index(v_5, A_shape1_4)] = v_8;
}

