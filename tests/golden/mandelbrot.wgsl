TFTensor kernels(TFContext tf, TFTensor c_re, TFTensor c_im)
{
    tf.check_tensor(c_re, "c_re", 2, TFType::Float);
    const int c_re_shape0_2 = (int)c_re.shape[0];
    const int c_re_shape1_3 = (int)c_re.shape[1];
    tf.check_tensor(c_im, "c_im", 2, TFType::Float);
    const int c_im_shape0_4 = (int)c_im.shape[0];
    const bool v_5 = (c_re_shape0_2 == c_im_shape0_4);
    tf.check(v_5, "argument 1 ('c_im'): shape[0] must be {0} (c_re.shape[0]), got {1}", {(long long)(c_re_shape0_2), (long long)(c_im_shape0_4)});
    const int c_im_shape1_6 = (int)c_im.shape[1];
    const bool c_im_7 = (c_re_shape1_3 == c_im_shape1_6);
    tf.check(c_im_7, "argument 1 ('c_im'): shape[1] must be {0} (c_re.shape[1]), got {1}", {(long long)(c_re_shape1_3), (long long)(c_im_shape1_6)});
    tf.check((long long)(c_re_shape0_2) >= 0, "tensor 'n': shape[0] is {0}, a negative size", {(long long)(c_re_shape0_2)});
    tf.check((long long)(c_re_shape1_3) >= 0, "tensor 'n': shape[1] is {0}, a negative size", {(long long)(c_re_shape1_3)});
    tf.check((double)(long long)(c_re_shape0_2) * (double)(long long)(c_re_shape1_3) <= 2147483647.0, "tensor 'n': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(c_re_shape0_2), (long long)(c_re_shape1_3)});
    TFTensor n_8 = tf.allocate("n", {(uint)c_re_shape0_2, (uint)c_re_shape1_3}, TFType::Int);
    tf.dispatch(0, {n_8}, {c_re, c_im}, {asuint(c_re_shape0_2), asuint(c_re_shape1_3)}, {(uint)c_re_shape0_2, (uint)c_re_shape1_3}, {256});
    return n_8;
}

// kernel kernels_k0: one thread per element of [c_re_shape0_3, c_re_shape1_4]
// binding 0: n_0 (int32, read-write)
// binding 1: c_re_1 (float32, read-only)
// binding 2: c_im_2 (float32, read-only)
// tf_u[0]: c_re_shape0_3 (int32)
// tf_u[1]: c_re_shape1_4 (int32)
@group(0) @binding(0) var<storage, read_write> n_0: array<i32>;
@group(0) @binding(1) var<storage, read_write> c_re_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> c_im_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let c_re_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let c_re_shape1_4: i32 = bitcast<i32>(tf_u.w[0].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(c_re_shape0_3) * u32(c_re_shape1_4)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(c_re_shape1_4));
    tf_rest = tf_rest / u32(c_re_shape1_4);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var z_re_5: f32 = 0.0f;
    var z_im_6: f32 = 0.0f;
    var n_7: i32 = 0 + min(i32(tf_groups.z), 0);
    let v_8: f32 = c_re_1[tf_t];
    let v_9: f32 = c_im_2[tf_t];
    for (var v_10: i32 = 0; (v_10 < 128); v_10 += 1) {
        let v_11: f32 = (z_re_5 * z_re_5);
        let v_12: f32 = (z_im_6 * z_im_6);
        let v_13: f32 = (v_11 - v_12);
        let z_re_new_14: f32 = (v_13 + v_8);
        let v_15: f32 = (2.0f * z_re_5);
        let v_16: f32 = (v_15 * z_im_6);
        let v_17: f32 = (v_16 + v_9);
        z_im_6 = v_17;
        z_re_5 = z_re_new_14;
        let v_18: i32 = (n_7 + 1);
        n_7 = v_18;
        let v_19: f32 = (z_re_5 * z_re_5);
        let v_20: f32 = (z_im_6 * z_im_6);
        let v_21: f32 = (v_19 + v_20);
        let v_22: bool = (v_21 > 256.0f);
        if (v_22) {
            break;
        }
    }
    n_0[tf_t] = n_7;
}

