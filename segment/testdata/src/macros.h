// A header written the way fmt-style libraries write theirs: namespaces
// opened by macros, specifiers behind macros.
#ifndef SHAPES_H_
#define SHAPES_H_

#define SHAPES_BEGIN_NAMESPACE namespace shapes {
#define SHAPES_END_NAMESPACE }
#define SHAPES_CONSTEXPR constexpr
#define SHAPES_NOEXCEPT noexcept
#define SHAPES_API

SHAPES_BEGIN_NAMESPACE

struct point {
  int x, y;
  SHAPES_CONSTEXPR point() : x(0), y(0) {}
  SHAPES_CONSTEXPR point(int x_, int y_) SHAPES_NOEXCEPT : x(x_), y(y_) {}
};

template <typename T> SHAPES_CONSTEXPR T square(T v) { return v * v; }

class SHAPES_API circle {
 public:
  explicit circle(point c, int r) : center_(c), radius_(r) {}
  SHAPES_CONSTEXPR int area() const SHAPES_NOEXCEPT {
    return 3 * square(radius_);
  }

 private:
  point center_;
  int radius_;
};

SHAPES_API int count_shapes(const circle* cs, int n);

SHAPES_END_NAMESPACE

#endif  // SHAPES_H_
