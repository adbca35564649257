// swift-tools-version: 6.1
// Instruction counts per operation for Weft and the same work written by hand, measured with callgrind
// (see count.sh and ../README.md). A package of its own, depending only on Weft, so it builds quickly.
import PackageDescription

let package = Package(
    name: "WeftCounts",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Weft", path: "../..")],
    targets: [
        // The services, in a module of their own: Weft's factories and the hand-written baseline both call
        // their initializers across a module boundary, as an app's code would.
        .target(name: "CountsModel", path: "Sources/CountsModel"),
        .executableTarget(
            name: "weft-counts",
            dependencies: ["CountsModel", .product(name: "Weft", package: "Weft")],
            path: "Sources/weft-counts"
        ),
    ],
    swiftLanguageModes: [.v6]
)
