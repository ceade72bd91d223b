namespace fmt {
template <typename T> class buf : public x {
 public:
  int a;
  void f() { g(); }
  int h();
};
int buf::h() { return 1; }
}  // namespace fmt
