static inline int hsq(int x) { if (x > 2) return x * x; return x; }
