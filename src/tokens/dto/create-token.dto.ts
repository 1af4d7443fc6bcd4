import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class CreateTokenDto {
  @ApiProperty({ example: 'ci', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  description: string;
}
