/// The words the injection wrappers (``Lazy``, ``Provider``, ``Injected`` and its lazy and weak kinds) stop the
/// program with, beside Weft's other user-facing texts; each ends with the ``ResolutionError`` that caused it.
enum InjectionMessages {
    /// `Lazy.instance` could not make its instance.
    static func lazyFailed(_ service: Any.Type, error: any Error) -> String {
        "Weft: Lazy<\(service)> could not make its instance.\n\(error)"
    }

    /// `Provider.instance` could not make an instance.
    static func providerFailed(_ service: Any.Type, error: any Error) -> String {
        "Weft: Provider<\(service)> could not make an instance.\n\(error)"
    }

    /// `@WeakLazyInjected` resolved a value, which a weak reference cannot hold.
    static func weakNeedsClass(_ service: Any.Type, resolvedTo resolved: Any.Type) -> String {
        "Weft: @WeakLazyInjected needs a class instance, but \(service) resolved to a \(resolved), which a weak "
            + "reference cannot hold. Use @LazyInjected."
    }
}

extension InjectionSite {
    /// The message a wrapper stops the program with when `serviceType` cannot be resolved:
    ///
    /// ```
    /// Weft: @Injected var of type Engine named "v8" (declared at MyApp/Car.swift:12) could not be resolved
    /// from Container.shared.
    /// [Weft.missingRegistration] No registration for Engine named "v8".
    /// ```
    func failureMessage(for serviceType: Any.Type, error: any Error) -> String {
        var requested = String(describing: serviceType)
        if let name { requested += " named \"\(name)\"" }
        let source = given ? "the container given to it" : "Container.shared"
        return "Weft: @\(wrapper) var of type \(requested) (declared at \(file):\(line)) could not be resolved from "
            + "\(source).\n\(error)"
    }
}
