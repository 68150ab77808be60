/* C2: the smallest call, y[0] = x[0] + 1, to measure the cost of calling C from Python. */
void c2_add_one(const float* x, float* y) { y[0] = x[0] + 1.0f; }
