import Glibc

/// The engine's timers, owned by the transfer thread: a binary min-heap on (deadline, sequence) so
/// equal deadlines fire in scheduling order, with lazy deletion (cancelled entries are skipped when
/// they reach the top).
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var seq: UInt64
        var id: TimerID
    }

    private var heap: [Entry] = []
    private var live: [TimerID: @Sendable () -> Void] = [:]
    private var seq: UInt64 = 0

    var count: Int { live.count }

    mutating func add(_ id: TimerID, deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
        seq += 1
        live[id] = work
        heap.append(Entry(deadline: deadline, seq: seq, id: id))
        siftUp(heap.count - 1)
    }

    mutating func cancel(_ id: TimerID) {
        live[id] = nil
        // Keep dead entries from piling up when many timers are cancelled long before they are due.
        if heap.count > 64 && heap.count > 4 * live.count { rebuild() }
    }

    mutating func removeAll() {
        heap.removeAll()
        live.removeAll()
    }

    /// The earliest live deadline, if any.
    mutating func nextDeadline() -> UInt64? {
        dropDeadTop()
        return heap.first?.deadline
    }

    /// Removes and returns the earliest timer if it is due at `now`. One at a time, so a timer's work
    /// can cancel another timer that is due at the same moment.
    mutating func popDue(now: UInt64) -> (@Sendable () -> Void)? {
        dropDeadTop()
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        return live.removeValue(forKey: top.id)
    }

    private mutating func dropDeadTop() {
        while let top = heap.first, live[top.id] == nil { removeTop() }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func rebuild() {
        heap.removeAll { live[$0.id] == nil }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        (heap[a].deadline, heap[a].seq) < (heap[b].deadline, heap[b].seq)
    }

    private mutating func siftUp(_ index: Int) {
        var i = index
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(i, parent) else { return }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var i = index
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && less(l, m) { m = l }
            if r < heap.count && less(r, m) { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}
