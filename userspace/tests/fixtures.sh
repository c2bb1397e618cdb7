#!/bin/bash
# SPDX-License-Identifier: MIT
# Build the ELF fixtures for the reader's tests into $1 (made fresh).
#   plain/    fx-pie, fx-nopie, libfx.so, fx-cpp with full symbols
#   dynsym/   fx-pie and a libfx.so stripped to .dynsym
#   dl/       fx-dl: stripped, .gnu_debuglink to .debug/fx-dl.debug
#   badcrc/   fx-crc: same, but its .debug file is another build (CRC differs)
#   bid/      fx-bid: stripped, no debuglink; debug file in
#             symfs/usr/lib/debug/.build-id/xx/rest.debug
#   mini/     fx-mini: stripped, MiniDebugInfo (.gnu_debugdata, xz)
#   vmlinux, i915.ko   fake kernel images (fixed addresses)
set -eu
FX=$1
SRC=$(cd "$(dirname "$0")/fixture" && pwd)
CC=${FIXTURE_CC:-gcc}
CF="-O1 -g -fno-optimize-sibling-calls -fno-omit-frame-pointer -fno-inline -Wl,--build-id=sha1"
rm -rf "$FX"
mkdir -p "$FX"/{plain,dynsym,dl/.debug,badcrc/.debug,bid,mini,symfs}
cd "$FX"

$CC $CF -fPIC -shared -o plain/libfx.so "$SRC/fxlib.c"
$CC $CF -fPIE -pie -o plain/fx-pie "$SRC/fx.c" -Lplain -lfx -Wl,-rpath,'$ORIGIN'
$CC $CF -fno-pie -no-pie -o plain/fx-nopie "$SRC/fx.c" -Lplain -lfx -Wl,-rpath,'$ORIGIN'

for d in dynsym dl badcrc bid mini; do
	strip --strip-all -o $d/libfx.so plain/libfx.so
done
cp plain/fx-pie dynsym/fx-pie

# a mangled C++ name
$CC $CF -fPIE -pie -o plain/fx-cpp "$SRC/cpp.c"

# debuglink
$CC $CF -fPIE -pie -o dl/fx-dl "$SRC/fx.c" -Lplain -lfx -Wl,-rpath,'$ORIGIN'
objcopy --only-keep-debug dl/fx-dl dl/.debug/fx-dl.debug
strip --strip-all dl/fx-dl
(cd dl && objcopy --add-gnu-debuglink=.debug/fx-dl.debug fx-dl)

# debuglink whose target has the right name but other contents; no build-id,
# so only the CRC tells them apart (fx-crc.good is the right one)
$CC $CF -Wl,--build-id=none -fPIE -pie -o badcrc/fx-crc "$SRC/fx.c" -Lplain -lfx -Wl,-rpath,'$ORIGIN'
objcopy --only-keep-debug badcrc/fx-crc badcrc/.debug/fx-crc.debug
strip --strip-all badcrc/fx-crc
(cd badcrc && objcopy --add-gnu-debuglink=.debug/fx-crc.debug fx-crc)
mv badcrc/.debug/fx-crc.debug badcrc/.debug/fx-crc.good
$CC $CF -Wl,--build-id=none -DOTHER=1 -fPIE -pie -o badcrc/other "$SRC/fx.c" -Lplain -lfx
objcopy --only-keep-debug badcrc/other badcrc/.debug/fx-crc.debug
rm badcrc/other

# build-id layout under a symfs
$CC $CF -fPIE -pie -o bid/fx-bid "$SRC/fx.c" -Lplain -lfx -Wl,-rpath,'$ORIGIN'
id=$(readelf -n bid/fx-bid | awk '/Build ID/ {print $3}')
[ -n "$id" ]
mkdir -p "symfs/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug bid/fx-bid "symfs/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
strip --strip-all bid/fx-bid
echo "$id" > bid/build-id

# MiniDebugInfo: .symtab only, xz-compressed into .gnu_debugdata
$CC $CF -fPIE -pie -o mini/fx-mini "$SRC/fx.c" -Lplain -lfx -Wl,-rpath,'$ORIGIN'
objcopy --only-keep-debug mini/fx-mini mini/full.debug
strip --strip-debug -o mini/mini.elf mini/full.debug
xz -z -c mini/mini.elf > mini/mini.xz
strip --strip-all mini/fx-mini
objcopy --add-section .gnu_debugdata=mini/mini.xz mini/fx-mini
rm mini/full.debug mini/mini.elf mini/mini.xz

# fake kernel images
$CC -c -Wa,-g -o vmlinux.o "$SRC/vmlinux.S"
ld -Ttext=0xffffffff81000000 -e _stext -o vmlinux vmlinux.o
$CC -c -o i915.ko "$SRC/i915.S"
rm vmlinux.o
echo "fixtures: built in $FX"
