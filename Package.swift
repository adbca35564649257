// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Weft",
    platforms: [
        .iOS(.v13),
        .macOS(.v10_15),
        .tvOS(.v13),
        .watchOS(.v6),
    ],
    products: [
        .library(name: "Weft", targets: ["Weft"]),
        // Per-test isolated containers: a Swift Testing trait and XCTest helpers. Link it to test targets only.
        .library(name: "WeftTesting", targets: ["WeftTesting"]),
        .executable(name: "weft-demo", targets: ["WeftDemo"]),
        // Weft's own stress and adversarial suite (see Sources/WeftStress/README.md).
        .executable(name: "weft-stress", targets: ["WeftStress"]),
    ],
    dependencies: [
        // Test-only: property-based tests of random registration graphs. The Weft library has no dependencies.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1")
    ],
    targets: [
        // The few C11 atomics of the resolution hot path (Swift's Synchronization needs macOS 15 / iOS 18).
        .target(name: "WeftAtomics"),
        .target(name: "Weft", dependencies: ["WeftAtomics"]),
        .target(name: "WeftTesting", dependencies: ["Weft"]),
        .executableTarget(name: "WeftDemo", dependencies: ["Weft"]),
        .executableTarget(name: "WeftStress", dependencies: ["Weft"], exclude: ["README.md"]),
        .testTarget(
            name: "WeftTests",
            dependencies: ["Weft", "WeftTesting", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "WeftTestingTests", dependencies: ["Weft", "WeftTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
