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
        .executable(name: "weft-demo", targets: ["WeftDemo"]),
    ],
    targets: [
        .target(name: "Weft"),
        .executableTarget(name: "WeftDemo", dependencies: ["Weft"]),
        .testTarget(name: "WeftTests", dependencies: ["Weft"]),
    ],
    swiftLanguageModes: [.v6]
)
