std::tuple<TFTensor, TFTensor, TFTensor> kernels(TFContext tf, TFTensor x, TFTensor y, TFTensor w1, TFTensor w2)
{
    tf.check_tensor(x, "x", 2, TFType::Float);
    const int x_shape0_4 = (int)x.shape[0];
    const int x_shape1_5 = (int)x.shape[1];
    const bool x_6 = (16 == x_shape1_5);
    tf.check(x_6, "argument 0 ('x'): shape[1] must be {0} (16), got {1}", {(long long)(16), (long long)(x_shape1_5)});
    tf.check_tensor(y, "y", 2, TFType::Float);
    const int y_shape0_7 = (int)y.shape[0];
    const bool v_8 = (x_shape0_4 == y_shape0_7);
    tf.check(v_8, "argument 1 ('y'): shape[0] must be {0} (x.shape[0]), got {1}", {(long long)(x_shape0_4), (long long)(y_shape0_7)});
    const int y_shape1_9 = (int)y.shape[1];
    const bool y_10 = (4 == y_shape1_9);
    tf.check(y_10, "argument 1 ('y'): shape[1] must be {0} (4), got {1}", {(long long)(4), (long long)(y_shape1_9)});
    tf.check_tensor(w1, "w1", 2, TFType::Float);
    const int w1_shape0_11 = (int)w1.shape[0];
    const bool v_12 = (16 == w1_shape0_11);
    tf.check(v_12, "argument 2 ('w1'): shape[0] must be {0} (16), got {1}", {(long long)(16), (long long)(w1_shape0_11)});
    const int w1_shape1_13 = (int)w1.shape[1];
    const bool w1_14 = (32 == w1_shape1_13);
    tf.check(w1_14, "argument 2 ('w1'): shape[1] must be {0} (32), got {1}", {(long long)(32), (long long)(w1_shape1_13)});
    tf.check_tensor(w2, "w2", 2, TFType::Float);
    const int w2_shape0_15 = (int)w2.shape[0];
    const bool v_16 = (32 == w2_shape0_15);
    tf.check(v_16, "argument 3 ('w2'): shape[0] must be {0} (32), got {1}", {(long long)(32), (long long)(w2_shape0_15)});
    const int w2_shape1_17 = (int)w2.shape[1];
    const bool w2_18 = (4 == w2_shape1_17);
    tf.check(w2_18, "argument 3 ('w2'): shape[1] must be {0} (4), got {1}", {(long long)(4), (long long)(w2_shape1_17)});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor buf_19 = tf.allocate("buf", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'hidden': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'hidden': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor hidden_20 = tf.allocate("hidden", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.dispatch(0, {hidden_20, buf_19}, {x, w1}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)32}, {256});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(4) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(4)});
    TFTensor buf_21 = tf.allocate("buf", {(uint)x_shape0_4, (uint)4}, TFType::Float);
    tf.dispatch(1, {buf_21}, {hidden_20, w2}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)4}, {256});
    tf.deallocate(hidden_20);
    const float v_22 = ((float)x_shape0_4);
    const float v_23 = (1.0f / v_22);
    const float v_24 = v_23;
    const float v_25 = v_24;
    const float v_26 = (v_25 / 4.0f);
    const float v_27 = v_26;
    TFTensor loss_28 = tf.allocate("loss", {(uint)1}, TFType::Float);
    tf.dispatch(2, {loss_28}, {buf_21, y}, {asuint(x_shape0_4), asuint(v_22)}, {(uint)1}, {256});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(4) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(4)});
    TFTensor buf_29 = tf.allocate("buf", {(uint)x_shape0_4, (uint)4}, TFType::Float);
    tf.dispatch(3, {buf_29}, {buf_21, y}, {asuint(x_shape0_4), asuint(v_27)}, {(uint)x_shape0_4, (uint)4}, {256});
    tf.deallocate(buf_21);
    TFTensor buf_30 = tf.allocate("buf", {(uint)4, (uint)32}, TFType::Float);
    tf.dispatch(4, {buf_30}, {w2}, {}, {(uint)4, (uint)32}, {256});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor buf_31 = tf.allocate("buf", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.dispatch(5, {buf_31}, {buf_29, buf_30}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)32}, {256});
    tf.deallocate(buf_30);
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'hidden': shape[1] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(32) * (double)(long long)(x_shape0_4) <= 2147483647.0, "tensor 'hidden': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(32), (long long)(x_shape0_4)});
    TFTensor hidden_32 = tf.allocate("hidden", {(uint)32, (uint)x_shape0_4}, TFType::Float);
    tf.dispatch(6, {hidden_32}, {buf_19}, {asuint(x_shape0_4)}, {(uint)32, (uint)x_shape0_4}, {256});
    TFTensor buf_33 = tf.allocate("buf", {(uint)32, (uint)4}, TFType::Float);
    tf.dispatch(7, {buf_33}, {hidden_32, buf_29}, {asuint(x_shape0_4)}, {(uint)32, (uint)4}, {256});
    tf.deallocate(hidden_32);
    tf.deallocate(buf_29);
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor buf_34 = tf.allocate("buf", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.dispatch(8, {buf_34}, {buf_19, buf_31}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)32}, {256});
    tf.deallocate(buf_31);
    tf.deallocate(buf_19);
    TFTensor buf_35 = tf.allocate("buf", {(uint)16, (uint)32}, TFType::Float);
    tf.dispatch(9, {buf_35}, {x, buf_34}, {asuint(x_shape0_4)}, {(uint)16, (uint)32}, {256});
    tf.deallocate(buf_34);
    TFTensor buf_36 = tf.allocate("buf", {(uint)16, (uint)32}, TFType::Float);
    tf.dispatch(10, {buf_36}, {buf_35, w1}, {}, {(uint)16, (uint)32}, {256});
    tf.deallocate(buf_35);
    TFTensor buf_37 = tf.allocate("buf", {(uint)32, (uint)4}, TFType::Float);
    tf.dispatch(11, {buf_37}, {buf_33, w2}, {}, {(uint)32, (uint)4}, {256});
    tf.deallocate(buf_33);
    return {buf_36, buf_37, loss_28};
}

// kernel kernels_k0: one thread per element of [x_shape0_4, 32]
// binding 0: hidden_0 (float32, read-write)
// binding 1: buf_1 (float32, read-write)
// binding 2: x_2 (float32, read-only)
// binding 3: w1_3 (float32, read-only)
// tf_u[0]: x_shape0_4 (int32)
@group(0) @binding(0) var<storage, read_write> hidden_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> x_2: array<f32>;
@group(0) @binding(3) var<storage, read_write> w1_3: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(4) var<uniform> tf_u: TfUniforms;

fn tf_isnan(a: f32) -> bool { return (bitcast<u32>(a) & 0x7FFFFFFFu) > 0x7F800000u; }

// tanh from exp(-2|x|), which never overflows; near 0 its Taylor series
fn tf_tanh_f32(a: f32) -> f32 {
    let x = abs(a);
    var r: f32;
    if (x < 0.125) {
        let x2 = x * x;
        r = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))));
    } else {
        let t = exp(-2.0 * x);
        r = (1.0 - t) / (1.0 + t);
    }
    return select(select(r, -r, a < 0.0), a, tf_isnan(a));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_4: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(x_shape0_4) * u32(32)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(32));
    tf_rest = tf_rest / u32(32);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_5: f32 = 0.0f;
    for (var v_6: i32 = 0; (v_6 < 16); v_6 += 1) {
        let v_7: f32 = x_2[(i0) * 16 + v_6];
        let v_8: f32 = w1_3[(v_6) * 32 + i1];
        let v_9: f32 = (v_7 * v_8);
        let v_10: f32 = (v_5 + v_9);
        v_5 = v_10;
    }
    let hidden_11: f32 = tf_tanh_f32(v_5);
    hidden_0[tf_t] = hidden_11;
    buf_1[tf_t] = v_5;
}

// kernel kernels_k1: one thread per element of [x_shape0_3, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: hidden_1 (float32, read-only)
// binding 2: w2_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> hidden_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> w2_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(x_shape0_3) * u32(4)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(4));
    tf_rest = tf_rest / u32(4);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_4: f32 = 0.0f;
    for (var v_5: i32 = 0; (v_5 < 32); v_5 += 1) {
        let v_6: f32 = hidden_1[(i0) * 32 + v_5];
        let v_7: f32 = w2_2[(v_5) * 4 + i1];
        let v_8: f32 = (v_6 * v_7);
        let v_9: f32 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

// kernel kernels_k2: one thread per element of [1]
// binding 0: loss_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: y_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
// tf_u[1]: v_4 (float32)
@group(0) @binding(0) var<storage, read_write> loss_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

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
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let v_4: f32 = bitcast<f32>(tf_u.w[0].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(1)) { return; }
    var tf_rest: u32 = tf_g;
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_5: f32 = 0.0f;
    for (var v_6: i32 = 0; (v_6 < x_shape0_3); v_6 += 1) {
        let v_7: f32 = buf_1[(v_6) * 4 + 0];
        let v_8: f32 = y_2[(v_6) * 4 + 0];
        let error_9: f32 = (v_7 - v_8);
        let v_10: f32 = buf_1[(v_6) * 4 + 0];
        let error_11: f32 = (v_10 - v_8);
        let v_12: f32 = (error_9 * error_11);
        let v_13: f32 = buf_1[(v_6) * 4 + 1];
        let v_14: f32 = y_2[(v_6) * 4 + 1];
        let error_15: f32 = (v_13 - v_14);
        let v_16: f32 = buf_1[(v_6) * 4 + 1];
        let error_17: f32 = (v_16 - v_14);
        let v_18: f32 = (error_15 * error_17);
        let v_19: f32 = (v_12 + v_18);
        let v_20: f32 = buf_1[(v_6) * 4 + 2];
        let v_21: f32 = y_2[(v_6) * 4 + 2];
        let error_22: f32 = (v_20 - v_21);
        let v_23: f32 = buf_1[(v_6) * 4 + 2];
        let error_24: f32 = (v_23 - v_21);
        let v_25: f32 = (error_22 * error_24);
        let v_26: f32 = (v_19 + v_25);
        let v_27: f32 = buf_1[(v_6) * 4 + 3];
        let v_28: f32 = y_2[(v_6) * 4 + 3];
        let error_29: f32 = (v_27 - v_28);
        let v_30: f32 = buf_1[(v_6) * 4 + 3];
        let error_31: f32 = (v_30 - v_28);
        let v_32: f32 = (error_29 * error_31);
        let v_33: f32 = (v_26 + v_32);
        let v_34: f32 = tf_div_f32(v_33, 4.0f);
        let v_35: f32 = (v_5 + v_34);
        v_5 = v_35;
    }
    let loss_36: f32 = tf_div_f32(v_5, v_4);
    loss_0[tf_t] = loss_36;
}

// kernel kernels_k3: one thread per element of [x_shape0_3, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: y_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
// tf_u[1]: v_4 (float32)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let v_4: f32 = bitcast<f32>(tf_u.w[0].y);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(x_shape0_3) * u32(4)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(4));
    tf_rest = tf_rest / u32(4);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_5: f32 = buf_1[tf_t];
    let v_6: f32 = y_2[tf_t];
    let error_7: f32 = (v_5 - v_6);
    let v_8: f32 = v_4;
    let v_9: f32 = v_8;
    let v_10: f32 = (v_9 * error_7);
    let v_11: f32 = (v_10 + v_10);
    buf_0[tf_t] = v_11;
}

// kernel kernels_k4: one thread per element of [4, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: w2_1 (float32, read-only)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> w2_1: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(4) * u32(32)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(32));
    tf_rest = tf_rest / u32(32);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_2: f32 = w2_1[(i1) * 4 + i0];
    var v_3: f32 = 0.0f;
    v_3 = v_2;
    buf_0[tf_t] = v_3;
}

// kernel kernels_k5: one thread per element of [x_shape0_3, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> buf_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(x_shape0_3) * u32(32)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(32));
    tf_rest = tf_rest / u32(32);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_4: f32 = 0.0f;
    for (var v_5: i32 = 0; (v_5 < 4); v_5 += 1) {
        let v_6: f32 = buf_1[(i0) * 4 + v_5];
        let v_7: f32 = buf_2[(v_5) * 32 + i1];
        let v_8: f32 = (v_6 * v_7);
        let v_9: f32 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

// kernel kernels_k6: one thread per element of [32, x_shape0_2]
// binding 0: hidden_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// tf_u[0]: x_shape0_2 (int32)
@group(0) @binding(0) var<storage, read_write> hidden_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(2) var<uniform> tf_u: TfUniforms;

fn tf_isnan(a: f32) -> bool { return (bitcast<u32>(a) & 0x7FFFFFFFu) > 0x7F800000u; }

// tanh from exp(-2|x|), which never overflows; near 0 its Taylor series
fn tf_tanh_f32(a: f32) -> f32 {
    let x = abs(a);
    var r: f32;
    if (x < 0.125) {
        let x2 = x * x;
        r = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))));
    } else {
        let t = exp(-2.0 * x);
        r = (1.0 - t) / (1.0 + t);
    }
    return select(select(r, -r, a < 0.0), a, tf_isnan(a));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_2: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(32) * u32(x_shape0_2)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(x_shape0_2));
    tf_rest = tf_rest / u32(x_shape0_2);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_3: f32 = buf_1[(i1) * 32 + i0];
    let hidden_4: f32 = tf_tanh_f32(v_3);
    hidden_0[tf_t] = hidden_4;
}

// kernel kernels_k7: one thread per element of [32, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: hidden_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> hidden_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> buf_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(32) * u32(4)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(4));
    tf_rest = tf_rest / u32(4);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_4: f32 = 0.0f;
    for (var v_5: i32 = 0; (v_5 < x_shape0_3); v_5 += 1) {
        let v_6: f32 = hidden_1[(i0) * x_shape0_3 + v_5];
        let v_7: f32 = buf_2[(v_5) * 4 + i1];
        let v_8: f32 = (v_6 * v_7);
        let v_9: f32 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

// kernel kernels_k8: one thread per element of [x_shape0_3, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> buf_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

fn tf_isnan(a: f32) -> bool { return (bitcast<u32>(a) & 0x7FFFFFFFu) > 0x7F800000u; }

// tanh from exp(-2|x|), which never overflows; near 0 its Taylor series
fn tf_tanh_f32(a: f32) -> f32 {
    let x = abs(a);
    var r: f32;
    if (x < 0.125) {
        let x2 = x * x;
        r = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))));
    } else {
        let t = exp(-2.0 * x);
        r = (1.0 - t) / (1.0 + t);
    }
    return select(select(r, -r, a < 0.0), a, tf_isnan(a));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(x_shape0_3) * u32(32)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(32));
    tf_rest = tf_rest / u32(32);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_4: f32 = buf_1[tf_t];
    let hidden_5: f32 = tf_tanh_f32(v_4);
    let v_6: f32 = (hidden_5 * hidden_5);
    let v_7: f32 = (1.0f - v_6);
    let v_8: f32 = buf_2[tf_t];
    let v_9: f32 = (v_8 * v_7);
    buf_0[tf_t] = v_9;
}

// kernel kernels_k9: one thread per element of [16, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: x_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> x_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> buf_2: array<f32>;
struct TfUniforms { w: array<vec4<u32>, 1> }
@group(0) @binding(3) var<uniform> tf_u: TfUniforms;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let x_shape0_3: i32 = bitcast<i32>(tf_u.w[0].x);
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(16) * u32(32)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(32));
    tf_rest = tf_rest / u32(32);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    var v_4: f32 = 0.0f;
    for (var v_5: i32 = 0; (v_5 < x_shape0_3); v_5 += 1) {
        let v_6: f32 = x_1[(v_5) * 16 + i0];
        let v_7: f32 = buf_2[(v_5) * 32 + i1];
        let v_8: f32 = (v_6 * v_7);
        let v_9: f32 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

// kernel kernels_k10: one thread per element of [16, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: w1_2 (float32, read-only)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> w1_2: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(16) * u32(32)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(32));
    tf_rest = tf_rest / u32(32);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_3: f32 = buf_1[tf_t];
    let v_4: f32 = v_3;
    let v_5: f32 = (0.01f * v_4);
    let v_6: f32 = w1_2[tf_t];
    let v_7: f32 = (v_6 - v_5);
    buf_0[tf_t] = v_7;
}

// kernel kernels_k11: one thread per element of [32, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: w2_2 (float32, read-only)
@group(0) @binding(0) var<storage, read_write> buf_0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> w2_2: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) tf_wg: vec3<u32>, @builtin(num_workgroups) tf_groups: vec3<u32>, @builtin(local_invocation_id) tf_lid: vec3<u32>) {
    let tf_g: u32 = (tf_wg.y * tf_groups.x + tf_wg.x) * 256u + tf_lid.x;
    if (tf_g >= u32(32) * u32(4)) { return; }
    var tf_rest: u32 = tf_g;
    let i1: i32 = i32(tf_rest % u32(4));
    tf_rest = tf_rest / u32(4);
    let i0: i32 = i32(tf_rest);
    let tf_t: i32 = i32(tf_g);
    let v_3: f32 = buf_1[tf_t];
    let v_4: f32 = v_3;
    let v_5: f32 = (0.01f * v_4);
    let v_6: f32 = w2_2[tf_t];
    let v_7: f32 = (v_6 - v_5);
    buf_0[tf_t] = v_7;
}

