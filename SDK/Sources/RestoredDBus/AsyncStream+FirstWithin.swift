extension AsyncStream where Element: Sendable {
    /// The first non-nil `match` of the stream's elements (a D-Bus signal
    /// answering a call), or nil once `limit` has passed or the stream ended.
    public func first<Value: Sendable>(within limit: Duration, where match: @escaping @Sendable (Element) -> Value?) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                for await element in self {
                    if let value = match(element) { return value }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
