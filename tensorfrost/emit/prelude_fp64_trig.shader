// tensorfrost shader prelude, float64 trigonometric functions (GLSL only), after
// prelude_fp64_exp.shader (whose word helpers and scalbn they use): fdlibm's kernels, its
// argument reduction (exact for every |x|), atan, atan2, asin, acos. See that file's notes.
//
// Copyright (C) 1993, 2004 by Sun Microsystems, Inc. All rights reserved. Permission to
// use, copy, modify, and distribute this software is freely granted, provided that this
// notice is preserved. (fdlibm; FreeBSD's changes by Bruce D. Evans and others.)

// sin, cos and tan on [-pi/4, pi/4] of x + y (k_sin.c, k_cos.c, k_tan.c)
double tf_kernel_sin(double x, double y, int iy) {
    precise double z = x * x;
    precise double w = z * z;
    precise double r = 8.33333333332248946124e-03lf + z * (-1.98412698298579493134e-04lf + z * 2.75573137070700676789e-06lf)
        + z * w * (-2.50507602534068634195e-08lf + z * 1.58969099521155010221e-10lf);
    precise double v = z * x;
    precise double s;
    if (iy == 0) s = x + v * (-1.66666666666666324348e-01lf + z * r);
    else s = x - ((z * (0.5lf * y - v * r) - y) - v * -1.66666666666666324348e-01lf);
    return s;
}

double tf_kernel_cos(double x, double y) {
    precise double z = x * x;
    precise double w = z * z;
    precise double r = z * (4.16666666666666019037e-02lf + z * (-1.38888888888741095749e-03lf + z * 2.48015872894767294178e-05lf))
        + w * w * (-2.75573143513906633035e-07lf + z * (2.08757232129817482790e-09lf + z * -1.13596475577881948265e-11lf));
    precise double hz = 0.5lf * z;
    w = 1.0lf - hz;
    precise double c = w + (((1.0lf - w) - hz) + (z * r - x * y));
    return c;
}

double tf_kernel_tan(double x, double y, int iy) {
    int hx = int(tf_high(x));
    int ix = hx & 0x7FFFFFFF;
    precise double xr = x;
    precise double yr = y;
    if (ix >= 0x3FE59428) {  // |x| >= 0.6744
        if (hx < 0) { xr = -xr; yr = -yr; }
        precise double z0 = 7.85398163397448278999e-01lf - xr;
        precise double w0 = 3.06161699786838301793e-17lf - yr;
        xr = z0 + w0;
        yr = 0.0lf;
    }
    precise double z = xr * xr;
    precise double w = z * z;
    precise double r = 1.33333333333201242699e-01lf + w * (2.18694882948595424599e-02lf + w * (3.59207910759131235356e-03lf
        + w * (5.88041240820264096874e-04lf + w * (7.81794442939557092300e-05lf + w * -1.85586374855275456654e-05lf))));
    precise double v = z * (5.39682539762260521377e-02lf + w * (8.86323982359930005737e-03lf + w * (1.45620945432529025516e-03lf
        + w * (2.46463134818469906812e-04lf + w * (7.14072491382608190305e-05lf + w * 2.59073051863633712884e-05lf)))));
    precise double s = z * xr;
    r = yr + z * (s * (r + v) + yr);
    r += 3.33333333333334091986e-01lf * s;
    w = xr + r;
    precise double result;
    if (ix >= 0x3FE59428) {
        v = double(iy);
        result = double(1 - ((hx >> 30) & 2)) * (v - 2.0lf * (xr - (w * w / (w + v) - r)));
        return result;
    }
    if (iy == 1) return w;
    precise double zh = tf_with_low(w, 0u);
    v = r - (zh - xr);
    precise double a = -1.0lf / w;
    precise double t = tf_with_low(a, 0u);
    s = 1.0lf + t * zh;
    result = t + a * (s + t * v);
    return result;
}

// The 24-bit pieces of 2/pi and of pi/2 (k_rem_pio2.c), and the reduction of a large |x|:
// the last three bits of n and y0 + y1 with x = n pi/2 + y0 + y1, |y0 + y1| <= pi/4
int tf_kernel_rem_pio2(double x0, double x1, double x2, int e0, int nx, out double y0, out double y1) {
    const int ipio2[66] = int[66](
        0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041, 0xFE5163, 0xABDEBB, 0xC561B7,
        0x246E3A, 0x424DD2, 0xE00649, 0x2EEA09, 0xD1921C, 0xFE1DEB, 0x1CB129, 0xA73EE8, 0x8235F5, 0x2EBB44, 0x84E99C,
        0x7026B4, 0x5F7E41, 0x3991D6, 0x398353, 0x39F49C, 0x845F8B, 0xBDF928, 0x3B1FF8, 0x97FFDE, 0x05980F, 0xEF2F11,
        0x8B5A0A, 0x6D1F6D, 0x367ECF, 0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D, 0x7527BA, 0xC7EBE5, 0xF17B3D, 0x0739F7,
        0x8A5292, 0xEA6BFB, 0x5FB11F, 0x8D5D08, 0x560330, 0x46FC7B, 0x6BABF0, 0xCFBC20, 0x9AF436, 0x1DA9E3, 0x91615E,
        0xE61B08, 0x659985, 0x5F14A0, 0x68408D, 0xFFD880, 0x4D7327, 0x310606, 0x1556CA, 0x73A8C9, 0x60E27B, 0xC08C6B);
    const double PIo2[8] = double[8](1.57079625129699707031e+00lf, 7.54978941586159635335e-08lf,
        5.39030252995776476554e-15lf, 3.28200341580791294123e-22lf, 1.27065575308067607349e-29lf,
        1.22933308981111328932e-36lf, 2.73370053816464559624e-44lf, 2.16741683877804819444e-51lf);
    const int jk = 4;
    precise double x[3] = double[3](x0, x1, x2);
    precise double f[20], q[20], fq[20];
    int iq[20];
    int jx = nx - 1;
    int jv = e0 >= 3 ? (e0 - 3) / 24 : 0;
    int q0 = e0 - 24 * (jv + 1);
    int j = jv - jx;
    for (int i = 0; i <= jx + jk; i++, j++) f[i] = j < 0 ? 0.0lf : double(ipio2[j]);
    for (int i = 0; i <= jk; i++) {
        precise double fw = 0.0lf;
        for (int m = 0; m <= jx; m++) fw += x[m] * f[jx + i - m];
        q[i] = fw;
    }
    int jz = jk, n = 0, ih = 0;
    precise double z;
    for (;;) {
        z = q[jz];
        for (int i = 0, m = jz; m > 0; i++, m--) {  // distill q[] into iq[], reversed
            precise double fw = double(int(5.96046447753906250000e-08lf * z));
            iq[i] = int(z - 1.67772160000000000000e+07lf * fw);
            z = q[m - 1] + fw;
        }
        z = tf_scalbn(z, q0);
        z -= 8.0lf * floor(z * 0.125lf);
        n = int(z);
        z -= double(n);
        ih = 0;
        if (q0 > 0) {
            int i = iq[jz - 1] >> (24 - q0);
            n += i;
            iq[jz - 1] -= i << (24 - q0);
            ih = iq[jz - 1] >> (23 - q0);
        } else if (q0 == 0) {
            ih = iq[jz - 1] >> 23;
        } else if (z >= 0.5lf) {
            ih = 2;
        }
        if (ih > 0) {
            n += 1;
            int carry = 0;
            for (int i = 0; i < jz; i++) {
                int m = iq[i];
                if (carry == 0) {
                    if (m != 0) { carry = 1; iq[i] = 0x1000000 - m; }
                } else {
                    iq[i] = 0xFFFFFF - m;
                }
            }
            if (q0 == 1) iq[jz - 1] &= 0x7FFFFF;
            else if (q0 == 2) iq[jz - 1] &= 0x3FFFFF;
            if (ih == 2) {
                z = 1.0lf - z;
                if (carry != 0) z -= tf_scalbn(1.0lf, q0);
            }
        }
        if (z != 0.0lf) break;
        int any = 0;
        for (int i = jz - 1; i >= jk; i--) any |= iq[i];
        if (any != 0) break;
        int k = 1;  // recompute with the k more terms needed
        while (iq[jk - k] == 0) k++;
        for (int i = jz + 1; i <= jz + k; i++) {
            f[jx + i] = double(ipio2[jv + i]);
            precise double fw = 0.0lf;
            for (int m = 0; m <= jx; m++) fw += x[m] * f[jx + i - m];
            q[i] = fw;
        }
        jz += k;
    }
    if (z == 0.0lf) {
        jz -= 1;
        q0 -= 24;
        while (iq[jz] == 0) { jz--; q0 -= 24; }
    } else {
        z = tf_scalbn(z, -q0);
        if (z >= 1.67772160000000000000e+07lf) {
            precise double fw = double(int(5.96046447753906250000e-08lf * z));
            iq[jz] = int(z - 1.67772160000000000000e+07lf * fw);
            jz += 1;
            q0 += 24;
            iq[jz] = int(fw);
        } else {
            iq[jz] = int(z);
        }
    }
    precise double fw = tf_scalbn(1.0lf, q0);
    for (int i = jz; i >= 0; i--) {
        q[i] = fw * double(iq[i]);
        fw *= 5.96046447753906250000e-08lf;
    }
    for (int i = jz; i >= 0; i--) {
        fw = 0.0lf;
        for (int k = 0; k <= jk && k <= jz - i; k++) fw += PIo2[k] * q[i + k];
        fq[jz - i] = fw;
    }
    fw = 0.0lf;
    for (int i = jz; i >= 0; i--) fw += fq[i];
    y0 = ih == 0 ? fw : -fw;
    fw = fq[0] - fw;
    for (int i = 1; i <= jz; i++) fw += fq[i];
    y1 = ih == 0 ? fw : -fw;
    return n & 7;
}

// x rem pi/2 (e_rem_pio2.c): n and y0 + y1 with x = n pi/2 + y0 + y1, for finite x
int tf_rem_pio2(double x, out double y0, out double y1) {
    uint hx = tf_high(x);
    uint ix = hx & 0x7FFFFFFFu;
    if (ix < 0x413921FBu) {  // |x| ~< 2^20 pi/2: Cody-Waite in up to three steps
        precise double fn = roundEven(x * 6.36619772367581382433e-01lf);
        int n = int(fn);
        precise double r = x - fn * 1.57079632673412561417e+00lf;
        precise double w = fn * 6.07710050650619224932e-11lf;
        int j = int(ix >> 20);
        y0 = r - w;
        int i = j - int((tf_high(y0) >> 20) & 0x7FFu);
        if (i > 16) {
            precise double t = r;
            w = fn * 6.07710050630396597660e-11lf;
            r = t - w;
            w = fn * 2.02226624879595063154e-21lf - ((t - r) - w);
            y0 = r - w;
            i = j - int((tf_high(y0) >> 20) & 0x7FFu);
            if (i > 49) {
                t = r;
                w = fn * 2.02226624871116645580e-21lf;
                r = t - w;
                w = fn * 8.47842766036889956997e-32lf - ((t - r) - w);
                y0 = r - w;
            }
        }
        precise double tail = (r - y0) - w;
        y1 = tail;
        return n;
    }
    int e0 = int(ix >> 20) - 1046;  // ilogb(|x|) - 23
    precise double z = packDouble2x32(uvec2(tf_low(x), ix - uint(e0 << 20)));
    precise double tx0 = double(int(z));
    z = (z - tx0) * 1.67772160000000000000e+07lf;
    precise double tx1 = double(int(z));
    z = (z - tx1) * 1.67772160000000000000e+07lf;
    int nx = z != 0.0lf ? 3 : (tx1 != 0.0lf ? 2 : 1);
    double t0, t1;
    int n = tf_kernel_rem_pio2(tx0, tx1, z, e0, nx, t0, t1);
    bool negative = (hx >> 31) != 0u;
    y0 = negative ? -t0 : t0;
    y1 = negative ? -t1 : t1;
    return negative ? -n : n;
}

double tf_sin_f64(double x) {
    uint ix = tf_high(x) & 0x7FFFFFFFu;
    if (ix <= 0x3FE921FBu) return ix < 0x3E500000u ? x : tf_kernel_sin(x, 0.0lf, 0);
    if (ix >= 0x7FF00000u) return TF_NAN64;
    double y0, y1;
    int n = tf_rem_pio2(x, y0, y1) & 3;
    if (n == 0) return tf_kernel_sin(y0, y1, 1);
    if (n == 1) return tf_kernel_cos(y0, y1);
    if (n == 2) return -tf_kernel_sin(y0, y1, 1);
    return -tf_kernel_cos(y0, y1);
}

double tf_cos_f64(double x) {
    uint ix = tf_high(x) & 0x7FFFFFFFu;
    if (ix <= 0x3FE921FBu) return ix < 0x3E46A09Eu ? 1.0lf : tf_kernel_cos(x, 0.0lf);
    if (ix >= 0x7FF00000u) return TF_NAN64;
    double y0, y1;
    int n = tf_rem_pio2(x, y0, y1) & 3;
    if (n == 0) return tf_kernel_cos(y0, y1);
    if (n == 1) return -tf_kernel_sin(y0, y1, 1);
    if (n == 2) return -tf_kernel_cos(y0, y1);
    return tf_kernel_sin(y0, y1, 1);
}

double tf_tan_f64(double x) {
    uint ix = tf_high(x) & 0x7FFFFFFFu;
    if (ix <= 0x3FE921FBu) return ix < 0x3E400000u ? x : tf_kernel_tan(x, 0.0lf, 1);
    if (ix >= 0x7FF00000u) return TF_NAN64;
    double y0, y1;
    int n = tf_rem_pio2(x, y0, y1);
    return tf_kernel_tan(y0, y1, 1 - ((n & 1) << 1));
}

// atan (s_atan.c): reduced to [0, 7/16] around atan(1/2), atan(1), atan(3/2), atan(inf)
double tf_atan_f64(double x) {
    int hx = int(tf_high(x));
    int ix = hx & 0x7FFFFFFF;
    if (ix >= 0x44100000) {  // |x| >= 2^66
        if (tf_isnan_f64(x)) return x;
        return hx > 0 ? 1.57079632679489655800e+00lf : -1.57079632679489655800e+00lf;
    }
    int id = -1;
    precise double xr = x;
    if (ix < 0x3FDC0000) {  // |x| < 0.4375
        if (ix < 0x3E200000) return x;
    } else {
        xr = abs(x);
        if (ix < 0x3FF30000) {
            if (ix < 0x3FE60000) { id = 0; xr = (2.0lf * xr - 1.0lf) / (2.0lf + xr); }
            else { id = 1; xr = (xr - 1.0lf) / (xr + 1.0lf); }
        } else {
            if (ix < 0x40038000) { id = 2; xr = (xr - 1.5lf) / (1.0lf + 1.5lf * xr); }
            else { id = 3; xr = -1.0lf / xr; }
        }
    }
    precise double z = xr * xr;
    precise double w = z * z;
    precise double s1 = z * (3.33333333333329318027e-01lf + w * (1.42857142725034663711e-01lf + w * (9.09088713343650656196e-02lf
        + w * (6.66107313738753120669e-02lf + w * (4.97687799461593236017e-02lf + w * 1.62858201153657823623e-02lf)))));
    precise double s2 = w * (-1.99999999998764832476e-01lf + w * (-1.11111104054623557880e-01lf + w * (-7.69187620504482999495e-02lf
        + w * (-5.83357013379057348645e-02lf + w * -3.65315727442169155270e-02lf))));
    precise double r;
    if (id < 0) { r = xr - xr * (s1 + s2); return r; }
    double hi = id == 0 ? 4.63647609000806093515e-01lf : id == 1 ? 7.85398163397448278999e-01lf
        : id == 2 ? 9.82793723247329054082e-01lf : 1.57079632679489655800e+00lf;
    double lo = id == 0 ? 2.26987774529616870924e-17lf : id == 1 ? 3.06161699786838301793e-17lf
        : id == 2 ? 1.39033110312309984516e-17lf : 6.12323399573676603587e-17lf;
    r = hi - ((xr * (s1 + s2) - lo) - xr);
    return hx < 0 ? -r : r;
}

// atan2(y, x) (e_atan2.c)
double tf_atan2_f64(double y, double x) {
    if (tf_isnan_f64(x) || tf_isnan_f64(y)) return TF_NAN64;
    uvec2 wx = unpackDouble2x32(x);
    uvec2 wy = unpackDouble2x32(y);
    int hx = int(wx.y), hy = int(wy.y);
    int ix = hx & 0x7FFFFFFF, iy = hy & 0x7FFFFFFF;
    if (hx == 0x3FF00000 && wx.x == 0u) return tf_atan_f64(y);
    int m = int(wy.y >> 31) | int((wx.y >> 31) << 1);  // 2 * sign(x) + sign(y)
    const double pi = 3.1415926535897931160E+00lf, pi_lo = 1.2246467991473531772E-16lf;
    const double pi_o_2 = 1.5707963267948965580E+00lf, pi_o_4 = 7.8539816339744827900E-01lf;
    if ((uint(iy) | wy.x) == 0u) return m < 2 ? y : (m == 2 ? pi : -pi);
    if ((uint(ix) | wx.x) == 0u) return hy < 0 ? -pi_o_2 : pi_o_2;
    if (ix == 0x7FF00000) {
        if (iy == 0x7FF00000) return m == 0 ? pi_o_4 : m == 1 ? -pi_o_4 : m == 2 ? 3.0lf * pi_o_4 : -3.0lf * pi_o_4;
        return m == 0 ? 0.0lf : m == 1 ? -0.0lf : m == 2 ? pi : -pi;
    }
    if (iy == 0x7FF00000) return hy < 0 ? -pi_o_2 : pi_o_2;
    int k = (iy - ix) >> 20;
    precise double z;
    if (k > 60) { z = pi_o_2 + 0.5lf * pi_lo; m &= 1; }
    else if (hx < 0 && k < -60) z = 0.0lf;
    else z = tf_atan_f64(abs(y / x));
    precise double r;
    if (m == 0) r = z;
    else if (m == 1) r = -z;
    else if (m == 2) r = pi - (z - pi_lo);
    else r = (z - pi_lo) - pi;
    return r;
}

// asin and acos's rational approximation (e_asin.c): (asin(x) - x) / x^3 of t = x^2
double tf_asin_ratio(double t) {
    precise double p = t * (1.66666666666666657415e-01lf + t * (-3.25565818622400915405e-01lf + t * (2.01212532134862925881e-01lf
        + t * (-4.00555345006794114027e-02lf + t * (7.91534994289814532176e-04lf + t * 3.47933107596021167570e-05lf)))));
    precise double q = 1.0lf + t * (-2.40339491173441421878e+00lf + t * (2.02094576023350569471e+00lf
        + t * (-6.88283971605453293030e-01lf + t * 7.70381505559019352791e-02lf)));
    precise double r = p / q;
    return r;
}

double tf_asin_f64(double x) {
    int hx = int(tf_high(x));
    int ix = hx & 0x7FFFFFFF;
    const double pio2_hi = 1.57079632679489655800e+00lf, pio2_lo = 6.12323399573676603587e-17lf;
    const double pio4_hi = 7.85398163397448278999e-01lf;
    if (ix >= 0x3FF00000) {  // |x| >= 1
        if (((ix - 0x3FF00000) | int(tf_low(x))) == 0) {
            precise double edge = x * pio2_hi + x * pio2_lo;
            return edge;
        }
        return TF_NAN64;
    }
    precise double r;
    if (ix < 0x3FE00000) {  // |x| < 0.5
        if (ix < 0x3E400000) return x;
        r = x + x * tf_asin_ratio(x * x);
        return r;
    }
    precise double w = 1.0lf - abs(x);
    precise double t = w * 0.5lf;
    precise double ratio = tf_asin_ratio(t);
    precise double s = sqrt(t);
    if (ix >= 0x3FEF3333) {  // |x| > 0.975
        t = pio2_hi - (2.0lf * (s + s * ratio) - pio2_lo);
    } else {
        w = tf_with_low(s, 0u);
        precise double c = (t - w * w) / (s + w);
        precise double p = 2.0lf * s * ratio - (pio2_lo - 2.0lf * c);
        precise double q = pio4_hi - 2.0lf * w;
        t = pio4_hi - (p - q);
    }
    return hx > 0 ? t : -t;
}

double tf_acos_f64(double x) {
    int hx = int(tf_high(x));
    int ix = hx & 0x7FFFFFFF;
    const double pi = 3.14159265358979311600e+00lf;
    const double pio2_hi = 1.57079632679489655800e+00lf, pio2_lo = 6.12323399573676603587e-17lf;
    if (ix >= 0x3FF00000) {
        if (((ix - 0x3FF00000) | int(tf_low(x))) == 0) {
            precise double edge = hx > 0 ? 0.0lf : pi + 2.0lf * pio2_lo;
            return edge;
        }
        return TF_NAN64;
    }
    precise double r;
    if (ix < 0x3FE00000) {  // |x| < 0.5
        if (ix <= 0x3C600000) { r = pio2_hi + pio2_lo; return r; }
        r = pio2_hi - (x - (pio2_lo - x * tf_asin_ratio(x * x)));
        return r;
    }
    if (hx < 0) {
        precise double z = (1.0lf + x) * 0.5lf;
        precise double s = sqrt(z);
        precise double w = tf_asin_ratio(z) * s - pio2_lo;
        r = pi - 2.0lf * (s + w);
        return r;
    }
    precise double z = (1.0lf - x) * 0.5lf;
    precise double s = sqrt(z);
    precise double df = tf_with_low(s, 0u);
    precise double c = (z - df * df) / (s + df);
    precise double w = tf_asin_ratio(z) * s + c;
    r = 2.0lf * (df + w);
    return r;
}
