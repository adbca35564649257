#!/bin/bash
# Weft declares iOS 13, macOS 10.15, tvOS 13 and watchOS 6 as its floors (Package.swift), and this machine compiles
# for Linux only, where no availability is checked. This catches, by reading the sources, what would not compile
# for those floors on an Apple platform:
# - a generic type with a parameter pack (`struct Box<each T>`): "parameter packs in generic types are only
#   available in macOS 14.0.0 or newer" (generic functions with packs are fine);
# - Swift Testing's `.timeLimit` trait, available from macOS 13 / iOS 16 / tvOS 16 / watchOS 9, used anywhere but
#   in the tests' `hangLimit`, which applies it only where it exists;
# - `String.contains` with a string in a file that does not import Foundation (see below).
set -u
cd "$(dirname "$0")/.."
status=0
packs=$(grep -rnE '^\s*(@[A-Za-z]+ )*((public|internal|private|fileprivate|package|final|indirect) )*(struct|class|enum|actor)\s+[A-Za-z_][A-Za-z0-9_]*\s*<[^>]*\beach\b' \
    --include='*.swift' Sources Tests)
if [ -n "$packs" ]; then
    echo "A generic type with a parameter pack needs macOS 14 / iOS 17 at run time (Weft's floors are lower):"
    echo "$packs"
    echo "Make it generic over the tuple of the pack's types, (repeat each T), as FactoryBox and PackBox are."
    status=1
fi
limits=$(grep -rn '\.timeLimit(' --include='*.swift' Tests | grep -v 'Tests/WeftTests/Support/HangLimit.swift')
if [ -n "$limits" ]; then
    echo "Swift Testing's .timeLimit needs macOS 13 / iOS 16 (Weft's floors are lower): use hangLimit instead:"
    echo "$limits"
    status=1
fi
# String.contains(String) without Foundation is the standard library's, from macOS 13 / iOS 16; Foundation's, which
# every Apple floor has, is chosen when the file imports Foundation.
strings=$(grep -rlE '\.contains\("[^"]{2,}' --include='*.swift' Sources Tests | xargs -r grep -LE '^\s*import (Foundation|XCTest)$')
if [ -n "$strings" ]; then
    echo "These files call String.contains with a string but do not import Foundation (needs macOS 13 / iOS 16 then):"
    echo "$strings"
    status=1
fi
[ $status -eq 0 ] && echo "no generic type with a parameter pack; no .timeLimit outside hangLimit; String.contains(String) with Foundation"
exit $status
