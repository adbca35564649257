/// An extra component of a registration key, for extensions that need to keep their
/// registrations apart from ordinary ones (Swinject's storyboard support uses one).
public protocol ServiceKeyOption: CustomStringConvertible, Sendable {
    /// Returns whether this option equals `another`.
    func isEqualTo(_ another: any ServiceKeyOption) -> Bool
    /// Feeds the option's identity into `hasher`.
    func hash(into: inout Hasher)
}

/// Identifies one registration: the service type, the factory's argument types (as the type of the
/// tuple `(Resolver, Arg1, ...)`), the name and an optional extension option.
///
/// Types are compared by `ObjectIdentifier`, never by their names.
@usableFromInline struct ServiceKey: Sendable {
    @usableFromInline let serviceType: Any.Type
    @usableFromInline let argumentsType: Any.Type
    @usableFromInline let name: String?
    /// The option in a box: a key is copied on every resolve, and a bare optional existential is five words
    /// whose every copy and test goes through value witnesses.
    @usableFromInline let optionBox: OptionBox?

    /// The extension option, if any.
    var option: (any ServiceKeyOption)? { optionBox?.option }

    /// Whether the key has an extension option.
    @inlinable var hasOption: Bool { optionBox != nil }

    @inlinable init(serviceType: Any.Type, argumentsType: Any.Type, name: String? = nil) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.name = name
        self.optionBox = nil
    }

    init(serviceType: Any.Type, argumentsType: Any.Type, name: String? = nil, option: (any ServiceKeyOption)?) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.name = name
        self.optionBox = option.map(OptionBox.init)
    }
}

@usableFromInline final class OptionBox: Sendable {
    let option: any ServiceKeyOption

    init(_ option: any ServiceKeyOption) {
        self.option = option
    }
}

extension ServiceKey: Hashable {
    @usableFromInline func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(serviceType))
        hasher.combine(ObjectIdentifier(argumentsType))
        hasher.combine(name)
        option?.hash(into: &hasher)
    }

    @usableFromInline static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        guard lhs.serviceType == rhs.serviceType, lhs.argumentsType == rhs.argumentsType, lhs.name == rhs.name
        else { return false }
        guard lhs.hasOption || rhs.hasOption else { return true }
        switch (lhs.option, rhs.option) {
        case (nil, nil): return true
        case (let left?, let right?): return left.isEqualTo(right)
        default: return false
        }
    }
}

extension ServiceKey {
    /// The argument types a caller passes, without the leading `Resolver`: `[]`, `["String"]`, ...
    var argumentTypeNames: [String] {
        let text = String(describing: argumentsType)
        guard text.hasPrefix("(") else { return [] }
        // "(Resolver, String, Bool)" -> ["String", "Bool"]
        let inner = text.dropFirst().dropLast()
        return splitTopLevel(String(inner)).dropFirst().map { $0 }
    }

    /// How this key reads in a resolution path: `Engine`, or `Engine["v8"]` for a named registration.
    var pathComponent: String {
        // An element of a collection reads as its place in the collection: `Array<Plugin>#2`.
        if hasOption, let contribution = option as? ContributionOption { return contribution.label(name: name) }
        // The registration a decorated forwarded type resolves through reads as its own type: `Cat`.
        if hasOption, let forwarded = option as? ForwardedOption { return String(describing: forwarded.target) }
        let text = String(describing: serviceType)
        guard let name else { return text }
        return text + "[\"\(name)\"]"
    }

    /// How this key reads in a message: `Engine named "v8" with arguments (Int, String)`, or for an element of a
    /// collection, which no request spells, its place: `the 2nd element contributed to Array<Plugin>`.
    var requestDescription: String {
        var text: String
        if hasOption, let contribution = option as? ContributionOption {
            text = contribution.elementDescription(name: name)
        } else {
            text = String(describing: serviceType)
            if let name { text += " named \"\(name)\"" }
        }
        let arguments = argumentTypeNames
        if !arguments.isEmpty { text += " with arguments (" + arguments.joined(separator: ", ") + ")" }
        return text
    }
}

/// Splits `"A, B<C, D>, (E, F)"` at the commas that are not nested in brackets.
private func splitTopLevel(_ text: String) -> [String] {
    var parts: [String] = []
    var depth = 0
    var current = ""
    for character in text {
        switch character {
        case "(", "<", "[": depth += 1
        case ")", ">", "]": depth -= 1
        case "," where depth == 0:
            parts.append(current.trimmingSpaces())
            current = ""
            continue
        default: break
        }
        current.append(character)
    }
    if !current.isEmpty { parts.append(current.trimmingSpaces()) }
    return parts
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return String(slice)
    }
}
