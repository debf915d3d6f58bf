# expect: exit=1 opcode_legal_on_engine
# LOAD_MASK_SELECT is a DVE instruction; the ACT queue does not execute it.
.gen CAYMAN
.engine ACT
LOAD_MASK_SELECT immediate=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31]
# sim: outcome=invalid rule=opcode_legal_on_engine stage=check
