// tensorfrost shader prelude, float64 exponentials, logarithms, pow and the hyperbolic
// functions (GLSL only: GLSL has no double exp, log, sin...; the trigonometric ones follow
// in prelude_fp64_trig.shader). Ports of FreeBSD msun's (fdlibm's) double functions, each
// within 1 ulp there: exp, expm1, log, log2 (k_log.h), pow, sinh, cosh, tanh; exp2 is exp's
// kernel on x - rint(x), times 2^rint(x). The words of a double are read and written with
// unpackDouble2x32 / packDouble2x32 (fdlibm's GET_HIGH_WORD...), and every intermediate is
// `precise`: the compiler may neither reassociate nor contract it (the algorithms depend on
// each rounding).
//
// Copyright (C) 1993, 2004 by Sun Microsystems, Inc. All rights reserved. Permission to
// use, copy, modify, and distribute this software is freely granted, provided that this
// notice is preserved. (fdlibm; FreeBSD's changes by Bruce D. Evans and others.)

uint tf_high(double x) { return unpackDouble2x32(x).y; }

uint tf_low(double x) { return unpackDouble2x32(x).x; }

double tf_words(uint high, uint low) { return packDouble2x32(uvec2(low, high)); }

double tf_with_low(double x, uint low) { return packDouble2x32(uvec2(low, unpackDouble2x32(x).y)); }

// y * 2^k by exact powers of two (only the last product rounds, into a subnormal if need be)
double tf_scalbn(double y, int k) {
    precise double r = y;
    for (; k > 1023; k -= 1023) r *= tf_words(0x7FE00000u, 0u);
    for (; k < -1022; k += 1022) r *= tf_words(0x00100000u, 0u);
    precise double s = r * tf_words(uint(k + 1023) << 20, 0u);
    return s;
}

// e^(hi - lo) * 2^k for |hi - lo| <= ln2 / 2 (e_exp.c's kernel)
double tf_exp_kernel(double hi, double lo, int k) {
    precise double r = hi - lo;
    precise double t = r * r;
    precise double c = r - t * (1.66666666666666019037e-01lf + t * (-2.77777777770155933842e-03lf
        + t * (6.61375632143793436117e-05lf + t * (-1.65339022054652515390e-06lf + t * 4.13813679705723846039e-08lf))));
    precise double y = 1.0lf - ((lo - (r * c) / (2.0lf - c)) - hi);
    return tf_scalbn(y, k);
}

double tf_exp_f64(double x) {
    uint hx = tf_high(x);
    int xsb = int(hx >> 31);
    hx &= 0x7FFFFFFFu;
    if (hx >= 0x40862E42u) {
        if (hx >= 0x7FF00000u) return tf_isnan_f64(x) ? x : (xsb == 0 ? x : 0.0lf);
        if (x > 7.09782712893383973096e+02lf) return TF_INF64;
        if (x < -7.45133219101941108420e+02lf) return 0.0lf;
    }
    if (hx < 0x3E300000u) {  // |x| < 2^-28
        precise double one_plus = 1.0lf + x;
        return one_plus;
    }
    precise double hi = x;
    precise double lo = 0.0lf;
    int k = 0;
    if (hx > 0x3FD62E42u) {
        if (hx < 0x3FF0A2B2u) {
            hi = xsb == 0 ? x - 6.93147180369123816490e-01lf : x + 6.93147180369123816490e-01lf;
            lo = xsb == 0 ? 1.90821492927058770002e-10lf : -1.90821492927058770002e-10lf;
            k = 1 - xsb - xsb;
        } else {
            precise double kf = 1.44269504088896338700e+00lf * x + (xsb == 0 ? 0.5lf : -0.5lf);
            k = int(kf);
            precise double t = double(k);
            hi = x - t * 6.93147180369123816490e-01lf;
            lo = t * 1.90821492927058770002e-10lf;
        }
    }
    return tf_exp_kernel(hi, lo, k);
}

double tf_exp2_f64(double x) {
    if (tf_isnan_f64(x)) return x;
    if (x >= 1024.0lf) return TF_INF64;
    if (x <= -1075.0lf) return 0.0lf;
    precise double k = roundEven(x);
    precise double f = x - k;
    precise double hi = f * 6.93147180559945286227e-01lf;
    precise double lo = -(fma(f, 6.93147180559945286227e-01lf, -hi) + f * 2.319046813846299558e-17lf);
    return tf_exp_kernel(hi, lo, int(k));
}

double tf_expm1(double x) {
    uint hx = tf_high(x);
    bool negative = (hx >> 31) != 0u;
    hx &= 0x7FFFFFFFu;
    if (hx >= 0x4043687Au) {  // |x| >= 56 ln2
        if (hx >= 0x40862E42u) {
            if (hx >= 0x7FF00000u) return tf_isnan_f64(x) ? x : (negative ? -1.0lf : x);
            if (x > 7.09782712893383973096e+02lf) return TF_INF64;
        }
        if (negative) return -1.0lf;
    }
    precise double xr = x;
    precise double hi, lo;
    precise double c = 0.0lf;
    int k = 0;
    if (hx > 0x3FD62E42u) {
        if (hx < 0x3FF0A2B2u) {
            if (!negative) { hi = x - 6.93147180369123816490e-01lf; lo = 1.90821492927058770002e-10lf; k = 1; }
            else { hi = x + 6.93147180369123816490e-01lf; lo = -1.90821492927058770002e-10lf; k = -1; }
        } else {
            precise double kf = 1.44269504088896338700e+00lf * x + (negative ? -0.5lf : 0.5lf);
            k = int(kf);
            precise double t = double(k);
            hi = x - t * 6.93147180369123816490e-01lf;
            lo = t * 1.90821492927058770002e-10lf;
        }
        xr = hi - lo;
        c = (hi - xr) - lo;
    } else if (hx < 0x3C900000u) {
        return x;
    }
    precise double hfx = 0.5lf * xr;
    precise double hxs = xr * hfx;
    precise double r1 = 1.0lf + hxs * (-3.33333333333331316428e-02lf + hxs * (1.58730158725481460165e-03lf
        + hxs * (-7.93650757867487942473e-05lf + hxs * (4.00821782732936239552e-06lf + hxs * -2.01099218183624371326e-07lf))));
    precise double t = 3.0lf - r1 * hfx;
    precise double e = hxs * ((r1 - t) / (6.0lf - xr * t));
    precise double y;
    if (k == 0) {
        y = xr - (xr * e - hxs);
        return y;
    }
    e = (xr * (e - c) - c);
    e -= hxs;
    if (k == -1) { y = 0.5lf * (xr - e) - 0.5lf; return y; }
    if (k == 1) {
        if (xr < -0.25lf) y = -2.0lf * (e - (xr + 0.5lf));
        else y = 1.0lf + 2.0lf * (xr - e);
        return y;
    }
    if (k <= -2 || k > 56) {
        y = 1.0lf - (e - xr);
        y = tf_scalbn(y, k) - 1.0lf;
        return y;
    }
    if (k < 20) {
        precise double one_less = tf_words(0x3FF00000u - (0x200000u >> uint(k)), 0u);  // 1 - 2^-k
        y = one_less - (e - xr);
    } else {
        precise double tiny_part = tf_words(uint(0x3FF - k) << 20, 0u);  // 2^-k
        y = xr - (e + tiny_part);
        y += 1.0lf;
    }
    y = tf_scalbn(y, k);
    return y;
}

// x = 2^k * (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2), for finite x > 0 (e_log.c's reduction)
double tf_log_reduce(double x, out int k) {
    k = 0;
    precise double v = x;
    uint hx = tf_high(v);
    if (hx < 0x00100000u) {  // subnormal: scaled up
        k -= 54;
        v *= 1.80143985094819840000e+16lf;
        hx = tf_high(v);
    }
    k += int(hx >> 20) - 1023;
    hx &= 0x000FFFFFu;
    uint i = (hx + 0x95F64u) & 0x100000u;
    v = packDouble2x32(uvec2(tf_low(v), hx | (i ^ 0x3FF00000u)));  // x or x / 2
    k += int(i >> 20);
    precise double f = v - 1.0lf;
    return f;
}

// log(1 + f) - f + f * f / 2 (k_log.h's k_log1p)
double tf_log1p_kernel(double f) {
    precise double s = f / (2.0lf + f);
    precise double z = s * s;
    precise double w = z * z;
    precise double t1 = w * (3.999999999940941908e-01lf + w * (2.222219843214978396e-01lf + w * 1.531383769920937332e-01lf));
    precise double t2 = z * (6.666666666666735130e-01lf + w * (2.857142874366239149e-01lf
        + w * (1.818357216161805012e-01lf + w * 1.479819860511658591e-01lf)));
    precise double hfsq = 0.5lf * f * f;
    precise double r = s * (hfsq + (t2 + t1));
    return r;
}

double tf_log_f64(double x) {
    if (tf_isnan_f64(x) || x < 0.0lf) return TF_NAN64;
    if (x == 0.0lf) return -TF_INF64;
    if (tf_isinf(x)) return x;
    int k;
    precise double f = tf_log_reduce(x, k);
    precise double hfsq = 0.5lf * f * f;
    precise double r = tf_log1p_kernel(f);
    precise double dk = double(k);
    precise double y = dk * 6.93147180369123816490e-01lf - ((hfsq - (r + dk * 1.90821492927058770002e-10lf)) - f);
    return y;
}

double tf_log2_f64(double x) {
    if (tf_isnan_f64(x) || x < 0.0lf) return TF_NAN64;
    if (x == 0.0lf) return -TF_INF64;
    if (tf_isinf(x)) return x;
    int k;
    precise double f = tf_log_reduce(x, k);
    precise double hfsq = 0.5lf * f * f;
    precise double r = tf_log1p_kernel(f);
    precise double hi = tf_with_low(f - hfsq, 0u);
    precise double lo = (f - hi) - hfsq + r;
    precise double val_hi = hi * 1.44269504072144627571e+00lf;
    precise double val_lo = (lo + hi) * 1.67517131648865118353e-10lf + lo * 1.44269504072144627571e+00lf;
    precise double y = double(k);
    precise double w = y + val_hi;
    val_lo += (y - w) + val_hi;
    precise double sum = val_lo + w;
    return sum;
}

// pow as C defines it (e_pow.c): log2(|x|) in two pieces, y * log2(|x|) = n + y', 2^n * 2^y'
double tf_pow_f64(double x, double y) {
    uvec2 wx = unpackDouble2x32(x);
    uvec2 wy = unpackDouble2x32(y);
    int hx = int(wx.y), hy = int(wy.y);
    uint lx = wx.x, ly = wy.x;
    int ix = hx & 0x7FFFFFFF, iy = hy & 0x7FFFFFFF;
    if ((uint(iy) | ly) == 0u) return 1.0lf;
    if (hx == 0x3FF00000 && lx == 0u) return 1.0lf;
    if (tf_isnan_f64(x) || tf_isnan_f64(y)) return TF_NAN64;
    int yisint = 0;  // 0: y is no integer, 1: an odd one, 2: an even one
    if (hx < 0) {
        if (iy >= 0x43400000) yisint = 2;
        else if (iy >= 0x3FF00000) {
            int k = (iy >> 20) - 0x3FF;
            if (k > 20) {
                uint j = ly >> uint(52 - k);
                if ((j << uint(52 - k)) == ly) yisint = 2 - int(j & 1u);
            } else if (ly == 0u) {
                int j = iy >> (20 - k);
                if ((j << (20 - k)) == iy) yisint = 2 - (j & 1);
            }
        }
    }
    if (ly == 0u) {
        if (iy == 0x7FF00000) {  // y is +-inf
            if (((ix - 0x3FF00000) | int(lx)) == 0) return 1.0lf;
            if (ix >= 0x3FF00000) return hy >= 0 ? y : 0.0lf;
            return hy < 0 ? -y : 0.0lf;
        }
        if (iy == 0x3FF00000) {
            precise double inverse = 1.0lf / x;
            return hy < 0 ? inverse : x;
        }
        if (hy == 0x40000000) {
            precise double square = x * x;
            return square;
        }
        if (hy == 0x3FE00000 && hx >= 0) return sqrt(x);
    }
    precise double ax = abs(x);
    if (lx == 0u && (ix == 0x7FF00000 || ix == 0 || ix == 0x3FF00000)) {  // x is +-0, +-inf, +-1
        precise double z = hy < 0 ? (ix == 0 ? TF_INF64 : 1.0lf / ax) : ax;
        if (hx < 0) {
            if (((ix - 0x3FF00000) | yisint) == 0) return TF_NAN64;
            if (yisint == 1) z = -z;
        }
        return z;
    }
    if (hx < 0 && yisint == 0) return TF_NAN64;
    precise double s = (hx < 0 && yisint == 1) ? -1.0lf : 1.0lf;
    precise double t1, t2;
    if (iy > 0x41E00000) {  // |y| > 2^31
        if (iy > 0x43F00000) {  // |y| > 2^64: over- or underflows
            if (ix <= 0x3FEFFFFF) return hy < 0 ? TF_INF64 : 0.0lf;
            if (ix >= 0x3FF00000) return hy > 0 ? TF_INF64 : 0.0lf;
        }
        if (ix < 0x3FEFFFFF) return hy < 0 ? s * TF_INF64 : s * 0.0lf;
        if (ix > 0x3FF00000) return hy > 0 ? s * TF_INF64 : s * 0.0lf;
        precise double t = ax - 1.0lf;
        precise double w = (t * t) * (0.5lf - t * (0.3333333333333333333333lf - t * 0.25lf));
        precise double u = 1.44269502162933349609e+00lf * t;
        precise double v = t * 1.92596299112661746887e-08lf - w * 1.44269504088896338700e+00lf;
        t1 = tf_with_low(u + v, 0u);
        t2 = v - (t1 - u);
    } else {
        int n = 0;
        if (ix < 0x00100000) {
            ax *= 9007199254740992.0lf;
            n -= 53;
            ix = int(tf_high(ax));
        }
        n += (ix >> 20) - 0x3FF;
        int j = ix & 0x000FFFFF;
        ix = j | 0x3FF00000;
        int k;
        if (j <= 0x3988E) k = 0;
        else if (j < 0xBB67A) k = 1;
        else { k = 0; n += 1; ix -= 0x00100000; }
        ax = packDouble2x32(uvec2(tf_low(ax), uint(ix)));
        precise double bp = k == 0 ? 1.0lf : 1.5lf;
        precise double dp_h = k == 0 ? 0.0lf : 5.84962487220764160156e-01lf;
        precise double dp_l = k == 0 ? 0.0lf : 1.35003920212974897128e-08lf;
        precise double u = ax - bp;
        precise double v = 1.0lf / (ax + bp);
        precise double ss = u * v;
        precise double s_h = tf_with_low(ss, 0u);
        precise double t_h = tf_words(uint(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18)), 0u);
        precise double t_l = ax - (t_h - bp);
        precise double s_l = v * ((u - s_h * t_h) - s_h * t_l);
        precise double s2 = ss * ss;
        precise double r = s2 * s2 * (5.99999999999994648725e-01lf + s2 * (4.28571428578550184252e-01lf
            + s2 * (3.33333329818377432918e-01lf + s2 * (2.72728123808534006489e-01lf + s2 * (2.30660745775561754067e-01lf
            + s2 * 2.06975017800338417784e-01lf)))));
        r += s_l * (s_h + ss);
        s2 = s_h * s_h;
        t_h = tf_with_low(3.0lf + s2 + r, 0u);
        t_l = r - ((t_h - 3.0lf) - s2);
        u = s_h * t_h;
        v = s_l * t_h + t_l * ss;
        precise double p_h = tf_with_low(u + v, 0u);
        precise double p_l = v - (p_h - u);
        precise double z_h = 9.61796700954437255859e-01lf * p_h;
        precise double z_l = -7.02846165095275826516e-09lf * p_h + p_l * 9.61796693925975554329e-01lf + dp_l;
        precise double t = double(n);
        t1 = tf_with_low(((z_h + z_l) + dp_h) + t, 0u);
        t2 = z_l - (((t1 - t) - dp_h) - z_h);
    }
    precise double y1 = tf_with_low(y, 0u);
    precise double p_l = (y - y1) * t1 + y * t2;
    precise double p_h = y1 * t1;
    precise double z = p_l + p_h;
    int j = int(tf_high(z));
    uint i = tf_low(z);
    if (j >= 0x40900000) {  // z >= 1024
        if (((j - 0x40900000) | int(i)) != 0) return s * TF_INF64;
        if (p_l + 8.0085662595372944372e-17lf > z - p_h) return s * TF_INF64;
    } else if ((j & 0x7FFFFFFF) >= 0x4090CC00) {  // z <= -1075
        if (((uint(j) - 0xC090CC00u) | i) != 0u) return s * 0.0lf;
        if (p_l <= z - p_h) return s * 0.0lf;
    }
    int ia = j & 0x7FFFFFFF;
    int k = (ia >> 20) - 0x3FF;
    int n = 0;
    if (ia > 0x3FE00000) {  // |z| > 0.5: n = [z + 0.5]
        n = j + (0x00100000 >> (k + 1));
        k = ((n & 0x7FFFFFFF) >> 20) - 0x3FF;
        precise double t = tf_words(uint(n & ~(0x000FFFFF >> k)), 0u);
        n = ((n & 0x000FFFFF) | 0x00100000) >> (20 - k);
        if (j < 0) n = -n;
        p_h -= t;
    }
    precise double t = tf_with_low(p_l + p_h, 0u);
    precise double u = t * 6.93147182464599609375e-01lf;
    precise double v = (p_l - (t - p_h)) * 6.93147180559945286227e-01lf + t * -1.90465429995776804525e-09lf;
    z = u + v;
    precise double w = v - (z - u);
    t = z * z;
    precise double t3 = z - t * (1.66666666666666019037e-01lf + t * (-2.77777777770155933842e-03lf
        + t * (6.61375632143793436117e-05lf + t * (-1.65339022054652515390e-06lf + t * 4.13813679705723846039e-08lf))));
    precise double r = (z * t3) / (t3 - 2.0lf) - (w + z * w);
    z = 1.0lf - (r - z);
    j = int(tf_high(z)) + (n << 20);
    if ((j >> 20) <= 0) z = tf_scalbn(z, n);
    else z = packDouble2x32(uvec2(tf_low(z), uint(j)));
    precise double result = s * z;
    return result;
}

// sinh, cosh, tanh (e_sinh.c, e_cosh.c, s_tanh.c), from expm1 and exp
double tf_sinh_f64(double x) {
    uint jx = tf_high(x);
    uint ix = jx & 0x7FFFFFFFu;
    if (ix >= 0x7FF00000u) return x;
    precise double h = (jx >> 31) != 0u ? -0.5lf : 0.5lf;
    precise double r;
    if (ix < 0x40360000u) {  // |x| < 22
        if (ix < 0x3E300000u) return x;
        precise double t = tf_expm1(abs(x));
        if (ix < 0x3FF00000u) r = h * (2.0lf * t - t * t / (t + 1.0lf));
        else r = h * (t + t / (t + 1.0lf));
        return r;
    }
    if (ix < 0x40862E42u) { r = h * tf_exp_f64(abs(x)); return r; }
    if (ix < 0x408633CEu || (ix == 0x408633CEu && tf_low(x) <= 0x8FB9F87Du)) {
        precise double w = tf_exp_f64(0.5lf * abs(x));
        precise double t = h * w;
        r = t * w;
        return r;
    }
    return (jx >> 31) != 0u ? -TF_INF64 : TF_INF64;
}

double tf_cosh_f64(double x) {
    uint ix = tf_high(x) & 0x7FFFFFFFu;
    if (ix >= 0x7FF00000u) return abs(x);
    precise double r;
    if (ix < 0x3FD62E43u) {  // |x| < ln2 / 2
        precise double t = tf_expm1(abs(x));
        precise double w = 1.0lf + t;
        if (ix < 0x3C800000u) return w;
        r = 1.0lf + (t * t) / (w + w);
        return r;
    }
    if (ix < 0x40360000u) {
        precise double t = tf_exp_f64(abs(x));
        r = 0.5lf * t + 0.5lf / t;
        return r;
    }
    if (ix < 0x40862E42u) { r = 0.5lf * tf_exp_f64(abs(x)); return r; }
    if (ix < 0x408633CEu || (ix == 0x408633CEu && tf_low(x) <= 0x8FB9F87Du)) {
        precise double w = tf_exp_f64(0.5lf * abs(x));
        precise double t = 0.5lf * w;
        r = t * w;
        return r;
    }
    return TF_INF64;
}

double tf_tanh_f64(double x) {
    uint jx = tf_high(x);
    uint ix = jx & 0x7FFFFFFFu;
    if (ix >= 0x7FF00000u) return tf_isnan_f64(x) ? x : ((jx >> 31) != 0u ? -1.0lf : 1.0lf);
    precise double z;
    if (ix < 0x40360000u) {  // |x| < 22
        if (ix < 0x3E300000u) return x;
        if (ix >= 0x3FF00000u) {
            precise double t = tf_expm1(2.0lf * abs(x));
            z = 1.0lf - 2.0lf / (t + 2.0lf);
        } else {
            precise double t = tf_expm1(-2.0lf * abs(x));
            z = -t / (t + 2.0lf);
        }
    } else {
        z = 1.0lf;
    }
    return (jx >> 31) != 0u ? -z : z;
}
