extension Double {
    /// `self` raised to `exponent`, for the growth factors of rate control (a base in 0.1...10,
    /// an exponent in 0...1 seconds); ConfCall has no libm. ln by the atanh series, exp by Taylor's
    /// series: both converge to full precision in that range. Outside it the result is clamped
    /// to the base's range, never NaN.
    func power(_ exponent: Double) -> Double {
        guard isFinite, exponent.isFinite else { return 1 }
        let base = Swift.min(10, Swift.max(0.1, self))
        let exponent = Swift.min(1, Swift.max(0, exponent))
        let z = (base - 1) / (base + 1)  // |z| <= 0.82
        var logarithm = 0.0, term = z
        for n in stride(from: 1, through: 201, by: 2) {
            logarithm += term / Double(n)
            term *= z * z
        }
        let x = 2 * logarithm * exponent  // |x| <= 2.31
        var result = 1.0, factor = 1.0
        for n in 1...30 {
            factor *= x / Double(n)
            result += factor
        }
        return result
    }
}
