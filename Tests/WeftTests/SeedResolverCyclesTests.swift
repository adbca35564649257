import Testing
import Weft
import WeftTesting

/// Resolver's "Cyclic Dependencies" page (seed 001), in Weft's spelling. Resolver's `resolveProperties`
/// is Weft's `initCompleted`, its `shared` scope is Weft's `.weak`, `Resolver.root` is `Container.shared`.
/// Each test has a container of its own as `Container.shared` (the `.isolatedContainer` trait).
@Suite struct SeedResolverCyclesTests {
    /// "A depends on B, which needs a reference back to A": B's reference is weak.
    enum Properties {
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

    /// "Using Injected": P gets its child through `@Injected`; C points back weakly.
    enum InjectedChild {
        final class ClassP {
            @Injected var c: ClassC
        }

        final class ClassC {
            weak var p: ClassP?
        }
    }

    /// "Lazy Injection": C gets its shared parent through `@LazyInjected`, a strong reference.
    enum LazyParent {
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

    /// Weft's way out of the lazy cycle: `@WeakLazyInjected` keeps the parent weakly.
    enum WeakLazyParent {
        final class ClassP {
            @Injected var c: ClassC
        }

        final class ClassC {
            @WeakLazyInjected var p: ClassP?
        }
    }

    // MARK: The Code: resolveProperties is initCompleted

    @Test(
        .isolatedContainer { c in
            c.register { r in Properties.ClassA(b: try r.require()) }
                .initCompleted { _, a in a.b.a = a }
            c.register { Properties.ClassB() }
        })
    func initCompletedTellsBAboutA() throws {
        weak var weakA: Properties.ClassA?
        weak var weakB: Properties.ClassB?
        do {
            let a: Properties.ClassA = try Container.shared.require()
            #expect(a.b.a === a)
            weakA = a
            weakB = a.b
        }

        #expect(weakA == nil, "B's reference back to A is weak: no cycle")
        #expect(weakB == nil)
    }

    // MARK: Using Injected

    @Test(
        .isolatedContainer { c in
            c.register { InjectedChild.ClassP() }
                .initCompleted { _, p in p.c.p = p }
            c.register { InjectedChild.ClassC() }
        })
    func injectedChildGetsAWeakReferenceBackToItsParent() throws {
        weak var weakP: InjectedChild.ClassP?
        weak var weakC: InjectedChild.ClassC?
        do {
            let p: InjectedChild.ClassP = try Container.shared.require()
            #expect(p.c.p === p)
            weakP = p
            weakC = p.c
        }

        #expect(weakP == nil)
        #expect(weakC == nil)
    }

    // MARK: Lazy Injection

    @Test(
        .isolatedContainer { c in
            c.register { LazyParent.ClassP() }.inObjectScope(.weak)
            c.register { LazyParent.ClassC() }
        })
    func lazyInjectedChildReachesItsSharedParent() throws {
        let p: LazyParent.ClassP = try Container.shared.require()
        defer { p.c.release() }

        #expect(p.c.p === p)
    }

    @Test(
        .isolatedContainer { c in
            c.register { LazyParent.ClassP() }.inObjectScope(.weak)
            c.register { LazyParent.ClassC() }
        })
    func lazyInjectedParentMakesAStrongCycleThatReleaseBreaks() throws {
        weak var weakP: LazyParent.ClassP?
        weak var weakC: LazyParent.ClassC?
        do {
            let p: LazyParent.ClassP = try Container.shared.require()
            _ = p.c.p
            weakP = p
            weakC = p.c
        }

        #expect(weakP != nil, "P keeps C through @Injected, C keeps P through @LazyInjected")
        #expect(weakC != nil)
        #expect(try Container.shared.require(LazyParent.ClassP.self) === weakP, "the shared parent is still alive")

        weakC?.release()

        #expect(weakP == nil, "released: nothing keeps P any more")
        #expect(weakC == nil)
    }

    @Test(
        .isolatedContainer { c in
            c.register { LazyParent.ClassP() }.inObjectScope(.weak)
            c.register { LazyParent.ClassC() }
        })
    func anUnreadLazyParentMakesNoCycle() throws {
        weak var weakP: LazyParent.ClassP?
        do {
            let p: LazyParent.ClassP = try Container.shared.require()
            weakP = p
        }

        #expect(weakP == nil)
    }

    @Test(
        .isolatedContainer { c in
            c.register { WeakLazyParent.ClassP() }.inObjectScope(.weak)
            c.register { WeakLazyParent.ClassC() }
        })
    func weakLazyInjectedParentMakesNoCycle() throws {
        weak var weakP: WeakLazyParent.ClassP?
        weak var weakC: WeakLazyParent.ClassC?
        do {
            let p: WeakLazyParent.ClassP = try Container.shared.require()
            #expect(p.c.p === p)
            weakP = p
            weakC = p.c
        }

        #expect(weakP == nil)
        #expect(weakC == nil)
    }
}
