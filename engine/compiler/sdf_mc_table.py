"""The cell triangulation of MuJoCo's marching cubes (the mesh an SDF plugin's <mesh> gets, seed
002 "sdf"), measured from mujoco 4.0.0's compiled meshes.

``MEASURED[config]`` lists the triangles of a cell whose inside corners are the bits of
``config``: three hex digits a triangle, each a cell edge id (engine/compiler/sdf_mesh.py
numbers corners and edges: corner c at (c & 1, c >> 1 & 1, c >> 2 & 1); edges 0-3 along x,
4-7 along y, 8-11 along z), in the order mujoco emits them and with each triangle's first vertex
as mujoco stores it (so faces are equal as arrays, not only as sets).

How it was measured (test/engine/sdf_mc_measure.py redoes it): mujoco's mesh_vert of a plugin
mesh are the engine's marching-cubes vertices (bit-equal values), so each mujoco face maps to
three grid edges; the one cell holding all three gives the config and the local edge ids. Over
the five plugins with their default configs and about 150 random ones (thin tori and bowl shells,
gears of 5-200 teeth, nuts and bolts of other radii), every cell of a config had the same
triangles: 230 of the 254 non-trivial configs occur (the last two, 53 and 92, only in
nutbolt.xml's bolt). The 24 that never occurred (two or more ambiguous faces, e.g. two inside
corners on a body diagonal with four more around them) are not here: sdf_mesh triangulates
them by its own rule, which has the topology of every measured entry (inside corners on an
ambiguous face kept apart), so only the choice of diagonals may differ from mujoco's there.
"""
from __future__ import annotations

MEASURED = {
    1: "048", 2: "509", 3: "495 489", 4: "1a4", 5: "180 1a8", 6: "1a4 950", 7: "51a 5a9 9a8",
    8: "b15", 9: "5b1 804", 10: "0b1 09b", 11: "148 18b b89", 12: "a5b a45", 13: "05b 0b8 8ba",
    14: "409 49a a9b", 15: "8ba 89b", 16: "286", 17: "062 046", 18: "950 628", 19: "295 256 654",
    20: "41a 286", 21: "a62 a21 120", 22: "095 862 1a4", 23: "61a 621 251 295", 24: "286 15b",
    25: "604 620 b15", 26: "b09 b10 628", 27: "461 629 169 19b", 28: "5a4 5ba 286",
    29: "2a6 25a 5ba 052", 30: "286 a9b a49 409", 31: "2a6 29a 9ba", 32: "927", 33: "048 792",
    34: "250 275", 35: "827 874 475", 36: "1a4 279", 37: "180 1a8 792", 38: "250 275 a41",
    39: "827 871 175 a81", 40: "b15 279", 41: "048 5b1 279", 42: "7b1 712 210",
    43: "482 421 127 17b", 44: "a5b a45 279", 45: "792 8ba 80b 05b", 46: "ba7 a40 7a0 702",
    47: "782 7b8 ba8", 48: "879 867", 49: "904 947 746", 50: "086 065 567", 51: "467 475",
    52: "786 798 1a4", 53: "796 61a 916 901", 54: "a41 567 506 086", 55: "a51 a65 675",
    56: "879 867 15b", 57: "15b 746 794 904", 59: "17b 147 467", 60: "4ba 45b 698 679",
    61: "670 ba0 a60 5b0 790", 62: "ba0 670 7b0 860 a40", 63: "67b 6ba", 64: "36a", 65: "a36 048",
    66: "36a 095", 67: "948 954 36a", 68: "341 364", 69: "680 603 301", 70: "341 364 950",
    71: "958 836 538 513", 72: "36a 5b1", 73: "15b 480 36a", 74: "0b1 09b 6a3",
    75: "6a3 b89 b18 148", 76: "b36 b65 564", 77: "836 803 0b3 05b", 78: "6b3 60b 09b 406",
    79: "6b3 68b 89b", 80: "2a3 28a", 81: "4a3 430 032", 82: "a28 a32 509", 84: "841 812 213",
    85: "013 032", 86: "509 213 281 841", 87: "529 512 132", 88: "2a3 28a 5b1",
    89: "b15 032 043 4a3", 90: "38a 328 19b 109", 91: "9b4 324 294 a34 b14",
    92: "5b4 428 b24 b32", 93: "b05 b30 320", 94: "324 9b4 b34 094 284", 95: "329 39b",
    96: "792 a36", 97: "279 6a3 048", 98: "527 502 a36", 99: "36a 475 487 827",
    100: "436 413 927", 101: "927 301 360 680", 102: "164 136 075 027",
    103: "138 758 518 278 368", 104: "36a 792 15b", 106: "a36 210 271 7b1",
    108: "279 564 5b6 b36", 110: "02b 64b 40b 36b 27b", 111: "683 8b3 87b 827",
    112: "379 39a a98", 113: "a04 a30 390 379", 114: "8a0 a37 0a7 075", 115: "34a 374 754",
    116: "184 178 798 371", 117: "937 903 013", 118: "758 138 378 418 508", 119: "137 175",
    120: "5b1 a98 a39 379", 122: "8a7 107 087 b17 a37", 124: "453 983 843 793 5b3",
    126: "084 37b", 127: "7b3", 128: "73b", 129: "048 3b7", 130: "509 3b7", 131: "495 489 3b7",
    132: "b73 41a", 133: "81a 801 73b", 134: "1a4 b73 095", 135: "3b7 9a8 95a 51a",
    136: "173 157", 137: "715 731 804", 138: "973 930 031", 139: "148 187 789 317",
    140: "3a4 347 745", 141: "80a a73 07a 057", 142: "a40 a03 309 397", 143: "397 3a9 a89",
    144: "286 b73", 145: "062 046 b73", 146: "286 950 3b7", 147: "b73 654 625 295",
    148: "3b7 a41 286", 149: "73b 120 1a2 a62", 152: "173 157 862", 153: "246 204 357 315",
    154: "628 031 093 973", 155: "469 319 149 739 629", 156: "862 745 734 3a4",
    157: "57a 20a 05a 62a 73a", 159: "296 9a6 93a 973", 160: "392 3b9", 161: "392 3b9 480",
    162: "b50 b03 302", 164: "93b 923 41a", 165: "0a8 01a 2b9 23b", 166: "41a 302 3b0 b50",
    167: "235 a85 825 1a5 3b5", 168: "592 521 123", 169: "804 123 152 592", 170: "031 023",
    171: "814 821 231", 173: "a85 235 3a5 925 805", 174: "43a 403 023", 175: "23a 2a8",
    176: "63b 6b8 8b9", 177: "63b 6b0 0b9 460", 178: "863 830 03b 0b5", 179: "b63 b56 546",
    180: "1a4 8b9 86b 63b", 181: "016 b96 906 3b6 1a6", 184: "985 863 583 531",
    185: "319 469 639 049 159", 186: "608 630 310", 187: "314 346", 188: "983 453 593 a43 863",
    189: "3a6 059", 190: "638 308 340 3a4", 191: "3a6", 192: "6b7 6ab", 193: "b6a b76 048",
    194: "6b7 6ab 095", 195: "854 895 a76 ab7", 196: "1b7 174 476", 198: "950 476 417 1b7",
    199: "891 761 681 b71 951", 200: "a15 a56 657", 201: "048 657 6a5 a15",
    203: "761 891 971 481 6a1", 204: "476 457", 205: "068 056 576", 206: "940 974 764",
    207: "897 876", 208: "728 78b b8a", 209: "b7a a04 70a 720", 210: "095 b8a b78 728",
    211: "ab2 542 4a2 952 b72", 212: "428 412 172 1b7", 213: "71b 721 201",
    215: "519 129 172 1b7", 216: "872 817 157 a18", 217: "20a 57a 72a 15a 04a",
    218: "107 8a7 a17 287 097", 219: "14a 297", 220: "872 847 457", 221: "205 257", 223: "972",
    224: "26a 2a9 9ab", 225: "480 9ab 92a 26a", 226: "26a 2a5 5ab 025",
    227: "542 ab2 b52 6a2 482", 228: "416 692 196 1b9", 229: "b96 016 1b6 806 926",
    230: "64b 02b 26b 50b 41b", 231: "268 1b5", 232: "6a1 612 215 259", 234: "a26 a12 102",
    236: "259 265 645", 238: "026 064", 239: "268", 240: "8ab 8b9", 241: "490 4a9 ab9",
    242: "0b5 08b 8ab", 243: "ab5 a54", 244: "184 1b8 b98", 245: "01b 0b9", 247: "b51",
    248: "5a1 59a 98a", 250: "108 18a", 251: "14a", 252: "459 498", 253: "590", 254: "084",
}
