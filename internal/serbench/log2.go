package serbench

import (
	"math"
	"math/big"
	"sync"
)

// The reference computes rank discounts with C's log2, which on the
// platforms it runs on returns the correctly rounded result for the small
// integers used as ranks. Go's math.Log2 is up to an ulp away (log2(3),
// log2(9), ...), which would leave ndcg a bit off the reference. log2Int
// returns the correctly rounded value, computed once per integer in
// 128-bit arithmetic.

const log2Prec = 128

var (
	log2Mu    sync.Mutex
	log2Cache = map[int]float64{}
	ln2Big    *big.Float
)

// log2Int returns log2(n) rounded to the nearest float64, for n >= 1.
func log2Int(n int) float64 {
	if n <= 0 {
		return math.Log2(float64(n))
	}
	if n&(n-1) == 0 {
		return float64(bitLen(n) - 1)
	}
	log2Mu.Lock()
	defer log2Mu.Unlock()
	if v, ok := log2Cache[n]; ok {
		return v
	}
	if ln2Big == nil {
		ln2Big = lnMantissa(new(big.Float).SetPrec(log2Prec).SetInt64(2))
	}
	// n = 2^e * m with m in [1, 2): log2 n = e + ln m / ln 2.
	e := bitLen(n) - 1
	m := new(big.Float).SetPrec(log2Prec).SetInt64(int64(n))
	m.SetMantExp(m, -e)
	r := new(big.Float).SetPrec(log2Prec).Quo(lnMantissa(m), ln2Big)
	r.Add(r, new(big.Float).SetPrec(log2Prec).SetInt64(int64(e)))
	v, _ := r.Float64()
	log2Cache[n] = v
	return v
}

// lnMantissa returns ln x for x in [1, 2] by the series
// ln x = 2 atanh z = 2 (z + z^3/3 + z^5/5 + ...), z = (x-1)/(x+1) <= 1/3.
func lnMantissa(x *big.Float) *big.Float {
	one := new(big.Float).SetPrec(log2Prec).SetInt64(1)
	num := new(big.Float).SetPrec(log2Prec).Sub(x, one)
	den := new(big.Float).SetPrec(log2Prec).Add(x, one)
	z := new(big.Float).SetPrec(log2Prec).Quo(num, den)
	z2 := new(big.Float).SetPrec(log2Prec).Mul(z, z)
	sum := new(big.Float).SetPrec(log2Prec)
	pow := new(big.Float).SetPrec(log2Prec).Set(z)
	term := new(big.Float).SetPrec(log2Prec)
	// z^2 <= 1/9, so each term gains more than 3 bits; 50 terms exceed
	// the working precision.
	for i := 0; i < 50; i++ {
		term.Quo(pow, new(big.Float).SetPrec(log2Prec).SetInt64(int64(2*i+1)))
		sum.Add(sum, term)
		pow.Mul(pow, z2)
	}
	return sum.Mul(sum, new(big.Float).SetPrec(log2Prec).SetInt64(2))
}

func bitLen(n int) int {
	l := 0
	for n > 0 {
		l++
		n >>= 1
	}
	return l
}
