std::tuple<TFTensor, TFTensor> kernels(TFContext tf, TFTensor u, TFTensor v)
{
    tf.check_tensor(u, "u", 2, TFType::Float);
    const int u_shape0_2 = (int)u.shape[0];
    const int u_shape1_3 = (int)u.shape[1];
    tf.check_tensor(v, "v", 2, TFType::Float);
    const int v_shape0_4 = (int)v.shape[0];
    const bool v_5 = (u_shape0_2 == v_shape0_4);
    tf.check(v_5, "argument 1 ('v'): shape[0] must be {0} (u.shape[0]), got {1}", {(long long)(u_shape0_2), (long long)(v_shape0_4)});
    const int v_shape1_6 = (int)v.shape[1];
    const bool v_7 = (u_shape1_3 == v_shape1_6);
    tf.check(v_7, "argument 1 ('v'): shape[1] must be {0} (u.shape[1]), got {1}", {(long long)(u_shape1_3), (long long)(v_shape1_6)});
    tf.check((long long)(u_shape0_2) >= 0, "tensor 'v_new': shape[0] is {0}, a negative size", {(long long)(u_shape0_2)});
    tf.check((long long)(u_shape1_3) >= 0, "tensor 'v_new': shape[1] is {0}, a negative size", {(long long)(u_shape1_3)});
    tf.check((double)(long long)(u_shape0_2) * (double)(long long)(u_shape1_3) <= 2147483647.0, "tensor 'v_new': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(u_shape0_2), (long long)(u_shape1_3)});
    TFTensor v_new_8 = tf.allocate("v_new", {(uint)u_shape0_2, (uint)u_shape1_3}, TFType::Float);
    tf.check((long long)(u_shape0_2) >= 0, "tensor 'u_new': shape[0] is {0}, a negative size", {(long long)(u_shape0_2)});
    tf.check((long long)(u_shape1_3) >= 0, "tensor 'u_new': shape[1] is {0}, a negative size", {(long long)(u_shape1_3)});
    tf.check((double)(long long)(u_shape0_2) * (double)(long long)(u_shape1_3) <= 2147483647.0, "tensor 'u_new': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(u_shape0_2), (long long)(u_shape1_3)});
    TFTensor u_new_9 = tf.allocate("u_new", {(uint)u_shape0_2, (uint)u_shape1_3}, TFType::Float);
    tf.dispatch(0, {v_new_8, u_new_9}, {u, v}, {asuint(u_shape0_2), asuint(u_shape1_3)}, {(uint)u_shape0_2, (uint)u_shape1_3}, {256});
    return {v_new_8, u_new_9};
}

// kernel kernels_k0: one thread per element of [u_shape0_4, u_shape1_5]
// binding 0: v_new_0 (float32, read-write)
// binding 1: u_new_1 (float32, read-write)
// binding 2: u_2 (float32, read-only)
// binding 3: v_3 (float32, read-only)
// tf_u[0]: u_shape0_4 (int32)
// tf_u[1]: u_shape1_5 (int32)
@group(0) @binding(0) var<storage, read_write> v_new_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> u_new_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> u_2: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_3: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(4) var<uniform> tf_u: TfUniforms;

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let u_shape0_4: i32 = bitcast<i32>(tf_u.w[0].x);
    let u_shape1_5: i32 = bitcast<i32>(tf_u.w[0].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(u_shape0_4) * u32(u_shape1_5)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(u_shape1_5));
    tf_rest = tf_rest / u32(u_shape1_5);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_6: i32 = (i0 - 1);
    let v_7: f32 = u_2[(tf_clamp_index(v_6, u_shape0_4)) * u_shape1_5 + i1];
    let v_8: i32 = (i0 + 1);
    let v_9: f32 = u_2[(tf_clamp_index(v_8, u_shape0_4)) * u_shape1_5 + i1];
    let v_10: f32 = (v_7 + v_9);
    let v_11: i32 = (i1 - 1);
    let v_12: f32 = u_2[(i0) * u_shape1_5 + tf_clamp_index(v_11, u_shape1_5)];
    let v_13: f32 = (v_10 + v_12);
    let v_14: i32 = (i1 + 1);
    let v_15: f32 = u_2[(i0) * u_shape1_5 + tf_clamp_index(v_14, u_shape1_5)];
    let v_16: f32 = (v_13 + v_15);
    let v_17: f32 = u_2[tf_t];
    let v_18: f32 = (v_17 * 4.0f);
    let laplacian_19: f32 = (v_16 - v_18);
    let v_20: f32 = (0.1f * laplacian_19);
    let v_21: f32 = v_3[tf_t];
    let v_new_22: f32 = (v_21 + v_20);
    v_new_0[tf_t] = v_new_22;
    let v_23: f32 = (0.1f * v_new_22);
    let u_new_24: f32 = (v_17 + v_23);
    u_new_1[tf_t] = u_new_24;
}

