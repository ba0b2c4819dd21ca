// Small helpers shared by the wifitcp ns-3 reference programs (R1, R2).
// Our own code; only the ns-3 public API is used.
#ifndef WIFITCP_BENCH_NS3_COMMON_H
#define WIFITCP_BENCH_NS3_COMMON_H

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace bench
{

/// Jain's fairness index J = (sum x)^2 / (n * sum x^2); 1 for an empty or all-zero vector.
inline double
Jain(const std::vector<double>& x)
{
    double s = 0, s2 = 0;
    for (double v : x)
    {
        s += v;
        s2 += v * v;
    }
    if (x.empty() || s2 == 0)
    {
        return 1.0;
    }
    return s * s / (x.size() * s2);
}

inline double
WallNow()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// Format a double with fixed precision, JSON-safe (no NaN/Inf).
inline std::string
Num(double v, int prec = 6)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", prec, v);
    return buf;
}

template <typename T>
std::string
Arr(const std::vector<T>& v, int prec = 6)
{
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < v.size(); ++i)
    {
        if (i)
        {
            os << ",";
        }
        if constexpr (std::is_floating_point<T>::value)
        {
            os << Num(v[i], prec);
        }
        else
        {
            os << v[i];
        }
    }
    os << "]";
    return os.str();
}

inline std::string
Str(const std::string& s)
{
    std::string o = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            o += '\\';
        }
        o += c;
    }
    return o + "\"";
}

} // namespace bench

#endif
