std::tuple<TFTensor, TFTensor> kernels(TFContext tf, TFTensor A, TFTensor B)
{
    tf.check_tensor(A, "A", 2, TFType::Float);
    const int A_shape0_2 = (int)A.shape[0];
    const int A_shape1_3 = (int)A.shape[1];
    tf.check_tensor(B, "B", 2, TFType::Float);
    const int B_shape0_4 = (int)B.shape[0];
    const bool v_5 = (A_shape1_3 == B_shape0_4);
    tf.check(v_5, "argument 1 ('B'): shape[0] must be {0} (A.shape[1]), got {1}", {(long long)(A_shape1_3), (long long)(B_shape0_4)});
    const int B_shape1_6 = (int)B.shape[1];
    tf.check((long long)(A_shape0_2) >= 0, "tensor 'C': shape[0] is {0}, a negative size", {(long long)(A_shape0_2)});
    tf.check((long long)(B_shape1_6) >= 0, "tensor 'C': shape[1] is {0}, a negative size", {(long long)(B_shape1_6)});
    tf.check((double)(long long)(A_shape0_2) * (double)(long long)(B_shape1_6) <= 2147483647.0, "tensor 'C': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape0_2), (long long)(B_shape1_6)});
    TFTensor C_7 = tf.allocate("C", {(uint)A_shape0_2, (uint)B_shape1_6}, TFType::Float);
    tf.check((long long)(A_shape0_2) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(A_shape0_2)});
    tf.check((long long)(B_shape1_6) >= 0, "tensor 'buf': shape[1] is {0}, a negative size", {(long long)(B_shape1_6)});
    tf.check((double)(long long)(A_shape0_2) * (double)(long long)(B_shape1_6) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape0_2), (long long)(B_shape1_6)});
    TFTensor buf_8 = tf.allocate("buf", {(uint)A_shape0_2, (uint)B_shape1_6}, TFType::Float);
    tf.dispatch(0, {C_7, buf_8}, {A, B}, {asuint(A_shape0_2), asuint(B_shape1_6), asuint(A_shape1_3)}, {(uint)A_shape0_2, (uint)B_shape1_6}, {256});
    return {C_7, buf_8};
}

// kernel kernels_k0: one thread per element of [A_shape0_4, B_shape1_5]
// binding 0: C_0 (float32, read-write)
// binding 1: buf_1 (float32, read-write)
// binding 2: A_2 (float32, read-only)
// binding 3: B_3 (float32, read-only)
// tf_u[0]: A_shape0_4 (int32)
// tf_u[1]: B_shape1_5 (int32)
// tf_u[2]: A_shape1_6 (int32)
@group(0) @binding(0) var<storage, read_write> C_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> A_2: array<f32>;
@group(0) @binding(3) var<storage, read_write> B_3: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(4) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let A_shape0_4: i32 = bitcast<i32>(tf_u.w[0].x);
    let B_shape1_5: i32 = bitcast<i32>(tf_u.w[0].y);
    let A_shape1_6: i32 = bitcast<i32>(tf_u.w[0].z);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(A_shape0_4) * u32(B_shape1_5)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(B_shape1_5));
    tf_rest = tf_rest / u32(B_shape1_5);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var C_7: f32 = 0.0f;
    var v_8: f32 = 0.0f;
    for (var v_9: i32 = 0; (v_9 < A_shape1_6); v_9 += 1) {
        let v_10: f32 = A_2[(i0) * A_shape1_6 + v_9];
        let v_11: f32 = B_3[(v_9) * B_shape1_5 + i1];
        let v_12: f32 = (v_10 * v_11);
        let v_13: f32 = (C_7 + v_12);
        C_7 = v_13;
        let v_14: f32 = (v_8 + v_12);
        v_8 = v_14;
    }
    C_0[tf_t] = C_7;
    buf_1[tf_t] = v_8;
}

