// Section 5: the scenarios of Resolver's "Cyclic Dependencies" page, in Weft's spelling: type inference,
// initCompleted (Resolver's resolveProperties), @Injected, @LazyInjected and its release().
//
// Each scenario runs with a container of its own as `Container.shared`, the container property wrappers
// resolve from, through `Container.withShared`.

import Weft

/// "A depends on B, which in turn needs a reference back to A"; B's reference is weak.
enum ResolverProperties {
    final class ClassA {
        var b: ClassB
        init(b: ClassB) {
            self.b = b
        }
    }

    final class ClassB {
        weak var a: ClassA?
    }
}

/// "Using Injected": the parent gets its child through `@Injected`; the child points back weakly.
enum ResolverInjected {
    final class ClassP {
        @Injected var c: ClassC
    }

    final class ClassC {
        weak var p: ClassP?
    }
}

/// "Lazy Injection": the child gets its shared parent through `@LazyInjected`, a strong reference.
enum ResolverLazy {
    final class ClassP {
        @Injected var c: ClassC
    }

    final class ClassC {
        @LazyInjected var p: ClassP

        func release() {
            $p.release()
        }
    }
}

/// Weft's alternative: `@WeakLazyInjected` reaches the shared parent without keeping it.
enum ResolverWeakLazy {
    final class ClassP {
        @Injected var c: ClassC
    }

    final class ClassC {
        @WeakLazyInjected var p: ClassP?
    }
}

/// Runs the four scenarios, each in a fresh `Container.shared`.
func runResolverSeedDemo() throws {
    heading("5. Resolver's cyclic dependencies: initCompleted, @Injected, @LazyInjected")
    say(
        "The same page for Resolver, spelled in Weft. register { ... } infers the service type from the "
            + "factory, r.require() infers it from the parameter it fills, Resolver's resolveProperties is "
            + "initCompleted, its shared scope is .weak, and Resolver.root is Container.shared. Each scenario "
            + "runs inside Container.withShared(container) { ... }, so the property wrappers resolve from it."
    )
    try Container.withShared(Container()) { try resolveProperties() }
    try Container.withShared(Container()) { try injectedChild() }
    try Container.withShared(Container()) { try lazyParent() }
    try Container.withShared(Container()) { try weakLazyParent() }
}

private func resolveProperties() throws {
    typealias ClassA = ResolverProperties.ClassA
    typealias ClassB = ResolverProperties.ClassB

    let calls = CallCounter()
    Container.shared.register { r in
        calls.record("ClassA factory")
        return ClassA(b: try r.require())
    }
    .initCompleted { _, a in
        calls.record("ClassA initCompleted")
        a.b.a = a
    }
    Container.shared.register {
        calls.record("ClassB factory")
        return ClassB()
    }

    scenario("The Code: register { ClassA(b: resolve()) }.resolveProperties { a.b.a = a }")
    say("Weft: register { r in ClassA(b: try r.require()) }.initCompleted { _, a in a.b.a = a }.")
    weak var weakA: ClassA?
    do {
        let a: ClassA = try Container.shared.require()
        weakA = a
        say("Result: a.b.a === a: \(yesNo(a.b.a === a)). Runs: \(calls.summary).")
    }
    say("Once the caller lets go, A is freed (B's reference back is weak): \(yesNo(weakA == nil)).")
}

private func injectedChild() throws {
    typealias ClassP = ResolverInjected.ClassP
    typealias ClassC = ResolverInjected.ClassC

    Container.shared.register { ClassP() }
        .initCompleted { _, p in p.c.p = p }
    Container.shared.register { ClassC() }

    scenario("Using Injected: ClassP { @Injected var c }, ClassC { weak var p }")
    say(
        "ClassP's @Injected property resolves ClassC from Container.shared while ClassP's factory runs; "
            + "initCompleted then tells the child about its parent."
    )
    weak var weakP: ClassP?
    do {
        let p: ClassP = try Container.shared.require()
        weakP = p
        say("Result: p.c.p === p: \(yesNo(p.c.p === p)).")
    }
    say("Once the caller lets go, P is freed: \(yesNo(weakP == nil)).")
}

private func lazyParent() throws {
    typealias ClassP = ResolverLazy.ClassP
    typealias ClassC = ResolverLazy.ClassC

    Container.shared.register { ClassP() }.inObjectScope(.weak)
    Container.shared.register { ClassC() }

    scenario("Lazy Injection: ClassC { @LazyInjected var p }, ClassP in a shared (.weak) scope")
    say("The child's lazy property resolves the shared parent on first access: no initCompleted needed.")
    weak var weakP: ClassP?
    weak var weakC: ClassC?
    do {
        let p: ClassP = try Container.shared.require()
        weakP = p
        weakC = p.c
        say("Result: p.c.p === p: \(yesNo(p.c.p === p)).")
    }
    say(
        "But P keeps C (@Injected) and C keeps P (@LazyInjected): after the caller lets go, "
            + "P is still alive: \(yesNo(weakP != nil)), C is still alive: \(yesNo(weakC != nil)). "
            + "A strong reference cycle, as the page warns."
    )
    weakC?.release()
    say(
        "After c.release() (which calls $p.release()): P freed: \(yesNo(weakP == nil)), "
            + "C freed: \(yesNo(weakC == nil))."
    )
}

private func weakLazyParent() throws {
    typealias ClassP = ResolverWeakLazy.ClassP
    typealias ClassC = ResolverWeakLazy.ClassC

    Container.shared.register { ClassP() }.inObjectScope(.weak)
    Container.shared.register { ClassC() }

    scenario("Weft's way out: ClassC { @WeakLazyInjected var p: ClassP? }")
    say("The same lazy lookup, kept weakly: the child reaches its parent without keeping it alive.")
    weak var weakP: ClassP?
    weak var weakC: ClassC?
    do {
        let p: ClassP = try Container.shared.require()
        weakP = p
        weakC = p.c
        say("Result: p.c.p === p: \(yesNo(p.c.p === p)).")
    }
    say(
        "After the caller lets go, with no release(): P freed: \(yesNo(weakP == nil)), "
            + "C freed: \(yesNo(weakC == nil))."
    )
}
