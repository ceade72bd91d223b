#ifndef SAMPLE_H_
#define SAMPLE_H_

#include <string>
#include "detail.h"

namespace lib {

// A buffer of bytes.
template <typename T>
class buffer {
 public:
  explicit buffer(size_t n) : size_(n) {}

  size_t size() const { return size_; }

  void grow(size_t n);

 private:
  size_t size_;
};

template <typename T>
void buffer<T>::grow(size_t n) {
  size_ += n;
  detail::notify(size_);
}

enum class kind { a, b };

}  // namespace lib

#endif  // SAMPLE_H_
