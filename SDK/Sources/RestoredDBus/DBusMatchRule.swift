/// Which signals a subscription receives; also the bus's match rule text.
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The sender (a well-known or unique name), or nil for any.
    public var sender: String?
    /// The object path, or nil for any.
    public var path: String?
    /// The interface, or nil for any.
    public var interface: String?
    /// The signal name, or nil for any.
    public var member: String?
    /// The first argument's string value, or nil for any (`arg0`).
    public var firstArgument: String?

    /// Creates a rule.
    public init(sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil, firstArgument: String? = nil) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.firstArgument = firstArgument
    }

    /// The rule as the bus's AddMatch takes it.
    public var description: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender='\(sender)'") }
        if let path { parts.append("path='\(path)'") }
        if let interface { parts.append("interface='\(interface)'") }
        if let member { parts.append("member='\(member)'") }
        if let firstArgument { parts.append("arg0='\(firstArgument)'") }
        return parts.joined(separator: ",")
    }

    /// Whether `message` is a signal this rule accepts. A well-known sender
    /// name is compared with `senderOwner`, its current unique owner.
    func matches(_ message: DBusMessage, senderOwner: String?) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, message.sender != sender, message.sender != senderOwner { return false }
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let firstArgument, (try? message.arguments())?.first?.stringValue != firstArgument { return false }
        return true
    }
}
