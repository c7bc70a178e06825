/// Parsing of RFC 3339 timestamps (`timeCreated`, `updated`) into Unix milliseconds.
enum RFC3339 {
    /// Milliseconds since the Unix epoch for `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    ///
    /// The fraction may have any number of digits (truncated to milliseconds, toward the past);
    /// `T` may also be `t` or a space, `Z` may be `z`; a leap second `:60` is accepted and
    /// counts as the next second. `nil` for anything else, including out-of-range fields.
    static func parseMillis(_ s: String) -> Int64? {
        var p = Scanner(Array(s.utf8))
        guard let year = p.digits(4), p.expect(UInt8(ascii: "-")),
              let month = p.digits(2), p.expect(UInt8(ascii: "-")),
              let day = p.digits(2),
              p.expect(anyOf: [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")]),
              let hour = p.digits(2), p.expect(UInt8(ascii: ":")),
              let minute = p.digits(2), p.expect(UInt8(ascii: ":")),
              let second = p.digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var millis: Int64 = 0
        if p.expect(UInt8(ascii: ".")) {
            var count = 0
            while let d = p.digit() {
                if count < 3 { millis = millis * 10 + Int64(d) }
                count += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { millis *= 10 }
        }

        var offsetSeconds: Int64 = 0
        if p.expect(anyOf: [UInt8(ascii: "Z"), UInt8(ascii: "z")]) {
            offsetSeconds = 0
        } else if let sign = p.take(anyOf: [UInt8(ascii: "+"), UInt8(ascii: "-")]) {
            guard let oh = p.digits(2), p.expect(UInt8(ascii: ":")), let om = p.digits(2),
                  oh <= 23, om <= 59
            else { return nil }
            offsetSeconds = Int64(oh * 3600 + om * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard p.atEnd else { return nil }

        let days = daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds
        return seconds * 1000 + millis
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func digit() -> Int? {
            guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
            defer { index += 1 }
            return Int(bytes[index] - 0x30)
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let d = digit() else { return nil }
                value = value * 10 + d
            }
            return value
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            take(anyOf: [byte]) != nil
        }

        mutating func expect(anyOf set: [UInt8]) -> Bool {
            take(anyOf: set) != nil
        }

        mutating func take(anyOf set: [UInt8]) -> UInt8? {
            guard index < bytes.count, set.contains(bytes[index]) else { return nil }
            defer { index += 1 }
            return bytes[index]
        }
    }
}
