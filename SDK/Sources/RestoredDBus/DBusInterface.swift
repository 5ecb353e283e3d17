/// An interface of an exported object: methods, properties and signals,
/// described for introspection and dispatched by ``DBusConnection``.
public struct DBusInterface: Sendable {
    /// A named, typed argument.
    public struct Argument: Sendable {
        /// The name shown in introspection.
        public var name: String
        /// The D-Bus signature.
        public var signature: String

        /// Creates an argument.
        public init(_ name: String, _ signature: String) {
            self.name = name
            self.signature = signature
        }
    }

    /// A method and its handler.
    public struct Method: Sendable {
        /// The name.
        public var name: String
        /// The arguments it takes.
        public var inputs: [Argument]
        /// The values it returns.
        public var outputs: [Argument]
        /// Runs the call; throw a ``DBusError`` to reply with that error.
        public var handler: @Sendable (DBusMethodCall) async throws -> [DBusValue]

        /// Creates a method.
        public init(_ name: String, inputs: [Argument] = [], outputs: [Argument] = [], handler: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]) {
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
            self.handler = handler
        }

        /// The signature the call must have.
        public var inputSignature: String { inputs.map(\.signature).joined() }
    }

    /// A property, read (and written, with a setter) through org.freedesktop.DBus.Properties.
    public struct Property: Sendable {
        /// The name.
        public var name: String
        /// The D-Bus signature of its value.
        public var signature: String
        /// Returns the current value.
        public var get: @Sendable () async -> DBusValue
        /// Sets the value, or nil for a read-only property.
        public var set: (@Sendable (DBusValue) async throws -> Void)?

        /// Creates a property.
        public init(_ name: String, signature: String, get: @escaping @Sendable () async -> DBusValue, set: (@Sendable (DBusValue) async throws -> Void)? = nil) {
            self.name = name
            self.signature = signature
            self.get = get
            self.set = set
        }
    }

    /// A signal, described for introspection.
    public struct Signal: Sendable {
        /// The name.
        public var name: String
        /// Its arguments.
        public var arguments: [Argument]

        /// Creates a signal description.
        public init(_ name: String, arguments: [Argument] = []) {
            self.name = name
            self.arguments = arguments
        }
    }

    /// The interface name.
    public var name: String
    /// Its methods.
    public var methods: [Method]
    /// Its properties.
    public var properties: [Property]
    /// Its signals.
    public var signals: [Signal]

    /// Creates an interface.
    public init(_ name: String, methods: [Method] = [], properties: [Property] = [], signals: [Signal] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// The interface's introspection XML.
    var introspectionXML: String {
        var xml = "  <interface name=\"\(name)\">\n"
        for method in methods {
            xml += "    <method name=\"\(method.name)\">\n"
            for argument in method.inputs { xml += "      <arg name=\"\(argument.name)\" type=\"\(argument.signature)\" direction=\"in\"/>\n" }
            for argument in method.outputs { xml += "      <arg name=\"\(argument.name)\" type=\"\(argument.signature)\" direction=\"out\"/>\n" }
            xml += "    </method>\n"
        }
        for signal in signals {
            xml += "    <signal name=\"\(signal.name)\">\n"
            for argument in signal.arguments { xml += "      <arg name=\"\(argument.name)\" type=\"\(argument.signature)\"/>\n" }
            xml += "    </signal>\n"
        }
        for property in properties {
            let access = property.set == nil ? "read" : "readwrite"
            xml += "    <property name=\"\(property.name)\" type=\"\(property.signature)\" access=\"\(access)\"/>\n"
        }
        return xml + "  </interface>\n"
    }
}
