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
#   many/      the eu-addr2line suite's program of ~1100 call sites (gen-many.py):
#              pie/, nopie/, lib/ (libmany.so + many-lib), dl/ (stripped,
#              debuglink), bid/ (stripped, debug file by build-id in
#              many/symfs), dynsym/ (libmany.so stripped to .dynsym), mini/
#              (MiniDebugInfo)
#   ustack/   format 1.2's generator (tests/ustack/gen.c) in two builds: fp/
#             (program and libusta.so with frame pointers) and nofp/ (none);
#             libustb.so is -fomit-frame-pointer in both; other/libusta.so
#             is the "replaced" library (other names, other build-id)
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

# the eu-addr2line suite's program, one directory per flavour
M=many
mkdir -p $M/pie $M/nopie $M/lib $M/dl/.debug $M/bid $M/dynsym $M/mini $M/symfs
python3 "$SRC/gen-many.py" 300 > $M/many.c
$CC $CF -fPIE -pie -o $M/pie/many $M/many.c
$CC $CF -fno-pie -no-pie -o $M/nopie/many $M/many.c
$CC $CF -DLIB -fPIC -shared -o $M/lib/libmany.so $M/many.c
$CC $CF -fPIE -pie -o $M/lib/many-lib "$SRC/many-main.c" -L$M/lib -lmany -Wl,-rpath,'$ORIGIN'
cp $M/pie/many $M/dl/many
objcopy --only-keep-debug $M/dl/many $M/dl/.debug/many.debug
strip --strip-all $M/dl/many
(cd $M/dl && objcopy --add-gnu-debuglink=.debug/many.debug many)
cp $M/pie/many $M/bid/many
id=$(readelf -n $M/bid/many | awk '/Build ID/ {print $3}')
mkdir -p "$M/symfs/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug $M/bid/many "$M/symfs/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
strip --strip-all $M/bid/many
cp $M/lib/many-lib $M/dynsym/
strip --strip-all -o $M/dynsym/libmany.so $M/lib/libmany.so
cp $M/pie/many $M/mini/many
objcopy --only-keep-debug $M/mini/many $M/mini/full.debug
strip --strip-debug -o $M/mini/mini.elf $M/mini/full.debug
xz -z -c $M/mini/mini.elf > $M/mini/mini.xz
strip --strip-all $M/mini/many
objcopy --add-section .gnu_debugdata=$M/mini/mini.xz $M/mini/many
rm $M/mini/full.debug $M/mini/mini.elf $M/mini/mini.xz

# format 1.2: the stack snapshot generator, with and without frame pointers
U=$SRC/../ustack
UB="-O1 -g -fno-inline -fno-optimize-sibling-calls -Wl,--build-id=sha1 -Wall -Wextra -Werror"
for v in fp nofp; do
	if [ $v = fp ]; then F=-fno-omit-frame-pointer; else F=-fomit-frame-pointer; fi
	mkdir -p ustack/$v
	$CC $UB -fomit-frame-pointer -fPIC -shared -o ustack/$v/libustb.so "$U/libb.c" "$U/fake.S"
	$CC $UB $F -fPIC -shared -o ustack/$v/libusta.so "$U/liba.c" -Lustack/$v -lustb \
		-Wl,-rpath,'$ORIGIN'
	$CC $UB $F -std=c11 -D_GNU_SOURCE -fPIE -pie -I"$SRC/../../../drivers-gpu-drm-i915-stall" \
		-o ustack/$v/ustack-gen "$U/gen.c" -Lustack/$v -lusta -lustb -Wl,-rpath,'$ORIGIN' \
		$(pkg-config --cflags --libs libelf libdw)
done
mkdir -p ustack/other
$CC $UB -fno-omit-frame-pointer -DOTHER -fPIC -shared -o ustack/other/libusta.so "$U/liba.c" \
	-Lustack/fp -lustb

# fake kernel images
$CC -c -Wa,-g -o vmlinux.o "$SRC/vmlinux.S"
ld -Ttext=0xffffffff81000000 -e _stext -o vmlinux vmlinux.o
$CC -c -o i915.ko "$SRC/i915.S"
rm vmlinux.o
echo "fixtures: built in $FX"
